"""What the provider chain tells telemetry and the circuit breakers about each provider it
tries: one `llm_call` event per provider (answered, fell back, skipped, cancelled), a provider
passed over without a request (a slow model in a burst, an open breaker), a provider that ran
out of retries.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from memory.core.telemetry import Telemetry
from memory.llm.providers._attempts import Attempts
from memory.llm.providers._base import LLMError, LLMRequest, LLMUnavailable
from memory.llm.providers._breaker import CircuitBreakers
from memory.llm.providers._retry import RetryPolicy

_log = logging.getLogger(__name__)


class GaveUp(Exception):
    """A provider ran out of retries on this request."""

    def __init__(self, error: LLMError, retries: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.retries = retries


@dataclass(frozen=True)
class ChainEvents:
    """The chain's telemetry and breaker bookkeeping, held by `ProviderChain` (its breakers
    and retry policy are the chain's own)."""

    telemetry: Telemetry
    breakers: CircuitBreakers
    policy: RetryPolicy

    def gave_up(
        self,
        request: LLMRequest,
        name: str,
        model: str,
        started: float,
        gave_up: GaveUp,
        attempts: Attempts,
        following: str | None,
    ) -> None:
        """A provider ran out of retries: its breaker hears it, telemetry says who is next."""
        self.breakers.released(name, model)
        self.breakers.gave_up(name, model, gave_up.error)
        self.emit(
            request,
            name,
            model,
            started,
            outcome="fallback" if following else "error",
            retries=gave_up.retries,
            error=f"{type(gave_up.error).__name__}: {gave_up.error}"[:300],
            fallback_to=following,
            attempt_errors=attempts.errors,
        )
        if following:
            _log.info(
                "llm %s via %s failed (%s); falling back to %s",
                request.purpose,
                name,
                type(gave_up.error).__name__,
                following,
            )

    def passed_over(
        self, request: LLMRequest, names: list[str], index: int, model: str, started: float
    ) -> tuple[bool, LLMError | None]:
        """Is this provider passed over without a request (its event emitted)? A slow local
        model in a burst would keep every member waiting; an open breaker means it is down."""
        name, is_last = names[index], index == len(names) - 1
        next_name = None if is_last else names[index + 1]
        if request.urgent and name in self.policy.provider_deadlines and not is_last:
            self.emit(
                request,
                name,
                model,
                started,
                outcome="skipped",
                retries=0,
                error="burst: a slow model is skipped",
                fallback_to=next_name,
                attempt_errors=[],
            )
            return True, None
        if self.breakers.allow(name, model):
            return False, None
        self.emit(
            request,
            name,
            model,
            started,
            outcome="error" if is_last else "skipped",
            retries=0,
            error="breaker open",
            fallback_to=next_name,
            attempt_errors=[],  # no request was sent
        )
        return True, LLMUnavailable(f"{name}:{model} skipped: its circuit breaker is open")

    def emit(
        self,
        request: LLMRequest,
        provider: str,
        model: str,
        started: float,
        *,
        outcome: str,
        retries: int,
        **fields: object,
    ) -> None:
        self.telemetry.emit(
            "llm_call",
            outcome=outcome,
            provider=provider,
            model=model or None,
            purpose=request.purpose,
            guild_id=request.guild_id,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
            retries=retries,
            **fields,
        )
