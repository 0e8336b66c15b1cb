"""A circuit breaker per (provider, model): a dead endpoint costs one refused connection, not
every call.

Without it each call to a model whose server is down retried a refused connection three times
and waited for rate-limit slots between tries, and the next call started over: 10-24 s per
console command. Here a refused connection opens the breaker at once, and timeouts open it
after a few in a row. While it is open the chain skips that model and the next provider (at
last the offline one) answers. After a backoff (5 s, doubling to 5 min) it half-opens: one call
probes the model while every other call still skips it; a probe that answers closes it, one
that fails opens it again for twice as long.

Every change of state is told to `on_change` (`_breaker_report.py`: telemetry op `breaker`, the
state file that `memorybot health` reads).
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from memory.llm.providers._base import (
    LLMError,
    LLMRequestRejected,
    LLMTimedOut,
    LLMUnavailable,
    LLMUnreachable,
)

_log = logging.getLogger(__name__)

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"
STATE_FILE = "llm-breakers.json"


@dataclass(frozen=True)
class BreakerPolicy:
    """When to open and how long to stay open."""

    failures_to_open: int = 3
    backoff_base_seconds: float = 5.0
    backoff_max_seconds: float = 300.0


@dataclass(frozen=True)
class BreakerState:
    """What the breaker of one model says (telemetry, the state file, `memorybot health`)."""

    provider: str
    model: str
    state: str
    reason: str = ""
    retry_in_seconds: float = 0.0
    opened_at: float | None = None  # wall-clock seconds


class _Breaker:
    def __init__(self, provider: str, model: str) -> None:
        self.provider = provider
        self.model = model
        self.state = CLOSED
        self.failures = 0
        self.backoff = 0.0
        self.until = 0.0  # monotonic seconds when an open breaker half-opens
        self.probing = False
        self.reason = ""
        self.opened_at: float | None = None
        # The last failure that was not an outage, and how many times in a row it came.
        self.last_failure = ""
        self.same_failures = 0


class CircuitBreakers:
    """The breakers of one provider chain, one per (provider, model), made on first use."""

    def __init__(
        self,
        policy: BreakerPolicy | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[BreakerState], None] | None = None,
    ) -> None:
        self.policy = policy or BreakerPolicy()
        self._clock = clock
        self._on_change = on_change
        self._breakers: dict[tuple[str, str], _Breaker] = {}

    def _get(self, provider: str, model: str) -> _Breaker:
        key = (provider, model)
        if key not in self._breakers:
            self._breakers[key] = _Breaker(provider, model)
        return self._breakers[key]

    def allow(self, provider: str, model: str) -> bool:
        """May a call go to this model now? True at most once while half-open (the probe)."""
        breaker = self._get(provider, model)
        if breaker.state == CLOSED:
            return True
        if breaker.state == OPEN:
            if self._clock() < breaker.until:
                return False
            breaker.state = HALF_OPEN
            breaker.probing = False
            self._changed(breaker)
        if breaker.probing:
            return False
        breaker.probing = True
        return True

    def is_open(self, provider: str, model: str) -> bool:
        """True while calls skip this model (open, or half-open with its probe out)."""
        breaker = self._breakers.get((provider, model))
        return breaker is not None and breaker.state != CLOSED

    def succeeded(self, provider: str, model: str) -> None:
        breaker = self._get(provider, model)
        breaker.failures = 0
        breaker.same_failures = 0
        breaker.probing = False
        if breaker.state != CLOSED:
            breaker.state = CLOSED
            breaker.backoff = 0.0
            breaker.reason = ""
            breaker.opened_at = None
            self._changed(breaker)

    def failed(self, provider: str, model: str, error: LLMError) -> None:
        """Count a failure that says the model is down (no connection, no answer in time), or
        the same refusal or server error again and again (every call would fail alike); other
        failures (429, bad output, a new error) are for retries and rate limits."""
        if not isinstance(error, LLMUnreachable | LLMTimedOut):
            same = self._get(provider, model).same_failures
            self.succeeded(provider, model)  # it answered, if not well: it is reachable
            self._get(provider, model).same_failures = same  # counted per call, by gave_up
            return
        breaker = self._get(provider, model)
        if breaker.state == OPEN:
            return  # calls that were already out when it opened: it is open for them too
        breaker.failures += 1
        enough = breaker.failures >= self.policy.failures_to_open
        if breaker.state == HALF_OPEN or isinstance(error, LLMUnreachable) or enough:
            self._open(breaker, f"{type(error).__name__}: {error}"[:200])

    def gave_up(self, provider: str, model: str, error: LLMError) -> None:
        """A call ended in `error` after its retries: the same refusal or server error for
        `failures_to_open` calls in a row opens the breaker (every call would fail alike)."""
        breaker = self._get(provider, model)
        said = f"{type(error).__name__}: {error}"[:200]
        if not isinstance(error, LLMRequestRejected) and type(error) is not LLMUnavailable:
            breaker.same_failures = 0
            breaker.last_failure = ""
            return
        if breaker.state == OPEN:
            return
        breaker.same_failures = breaker.same_failures + 1 if said == breaker.last_failure else 1
        breaker.last_failure = said
        if breaker.same_failures >= self.policy.failures_to_open:
            breaker.same_failures = 0
            breaker.last_failure = ""
            self._open(breaker, said)

    def released(self, provider: str, model: str) -> None:
        """A probe ended without telling anything (cancelled): let the next call probe."""
        breaker = self._breakers.get((provider, model))
        if breaker is not None:
            breaker.probing = False

    def _open(self, breaker: _Breaker, reason: str) -> None:
        policy = self.policy
        if breaker.state == CLOSED:
            breaker.backoff = policy.backoff_base_seconds
            breaker.opened_at = time.time()
        else:
            breaker.backoff = min(policy.backoff_max_seconds, breaker.backoff * 2)
        breaker.state = OPEN
        breaker.probing = False
        breaker.reason = reason
        breaker.until = self._clock() + breaker.backoff
        _log.warning(
            "llm %s:%s is down (%s); skipping it for %.0fs",
            breaker.provider,
            breaker.model,
            reason,
            breaker.backoff,
        )
        self._changed(breaker)

    def _state(self, breaker: _Breaker) -> BreakerState:
        retry_in = max(0.0, breaker.until - self._clock()) if breaker.state == OPEN else 0.0
        return BreakerState(
            breaker.provider,
            breaker.model,
            breaker.state,
            breaker.reason,
            round(retry_in, 1),
            breaker.opened_at,
        )

    def states(self) -> list[BreakerState]:
        return [self._state(breaker) for breaker in self._breakers.values()]

    def _changed(self, breaker: _Breaker) -> None:
        if self._on_change is not None:
            self._on_change(self._state(breaker))


def is_connect_failure(exc: BaseException) -> bool:
    """True when `exc` (or what caused it) is a failure to connect at all: refused, no route,
    name not resolved; not a connection that broke mid-answer or timed out."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 6:
        if isinstance(current, ConnectionRefusedError | ConnectionAbortedError):
            return True
        name = type(current).__name__
        if name in _CONNECT_ERROR_NAMES:
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    return False


# httpx.ConnectError, aiohttp.ClientConnectorError (and its DNS/refused subclasses): matched by
# name so this module needs neither HTTP stack.
_CONNECT_ERROR_NAMES = frozenset(
    {
        "ConnectError",
        "ClientConnectorError",
        "ClientConnectorDNSError",
        "ClientProxyConnectionError",
    }
)


def is_local_endpoint(base_url: str) -> bool:
    """An endpoint on this machine or a private network (Ollama at localhost, a compose
    service called `ollama`): a server of our own, with no provider quota to keep to."""
    host = urlsplit(base_url).hostname or ""
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost") or ("." not in host and ":" not in host):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host.endswith((".local", ".internal", ".lan"))
    return address.is_loopback or address.is_private or address.is_link_local
