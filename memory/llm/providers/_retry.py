"""How hard the provider chain tries one provider before the next answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try one provider before falling back to the next."""

    max_retries: int = 3
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    bad_output_retries: int = 1
    timeout: float | None = 30.0
    queue_timeout: float | None = 120.0
    # Longer budgets for purposes with long prompts (a whole day of chat).
    purpose_timeouts: Mapping[str, float] = field(default_factory=dict)
    # A member is waiting on these purposes: one provider gets this long for all its attempts
    # (queue, retries, backoff) before the next provider answers, so a hung model cannot hold
    # a reply for minutes.
    purpose_deadlines: Mapping[str, float] = field(default_factory=dict)
    # Providers whose member-facing deadline is longer (a local model on a CPU needs 10-60 s
    # for a reply): their one attempt gets the whole of it.
    provider_deadlines: Mapping[str, float] = field(default_factory=dict)

    def deadline_for(self, purpose: str, provider: str = "") -> float | None:
        """How long one provider gets in all when a member waits (None: no such limit)."""
        deadline = self.purpose_deadlines.get(purpose)
        if deadline is None:
            return None
        return self.provider_deadlines.get(provider, deadline)

    def timeout_for(self, purpose: str, provider: str = "") -> float | None:
        deadline = self.deadline_for(purpose, provider)
        timeout = self.purpose_timeouts.get(purpose, self.timeout)
        if deadline is not None and provider in self.provider_deadlines:
            return deadline
        if deadline is not None and (timeout is None or deadline < timeout):
            return deadline
        return timeout

    def delay(self, retry: int, hint: float | None, jitter: float) -> float | None:
        """Seconds before retry number `retry` (0-based); None when the wait is not worth it.

        Jitter spreads callers that failed together (factor 0.5-1.5). A server's own
        Retry-After hint wins, unless it asks for more than `backoff_max`: then the quota is
        gone for a while and the next provider should answer instead.
        """
        if hint is not None:
            return None if hint > self.backoff_max else hint
        return float(min(self.backoff_max, self.backoff_base * (2**retry)) * (0.5 + jitter))
