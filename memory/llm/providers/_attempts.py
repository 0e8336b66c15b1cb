"""What one provider's tries for one call came to, for usage: `memorybot usage` counts every
attempt, not only the answered ones (a server refusing every request must show up there)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Attempts:
    """One provider's tries for one call, for usage (which counts every attempt): the error
    class of each that failed, and how many were started (one may be on the wire when a
    deadline or a cancel ends the call)."""

    errors: list[str] = field(default_factory=list)
    started: int = 0

    def ended_unanswered(self, error_class: str) -> list[str]:
        """The failed attempts, plus the one in flight (if any) ended by `error_class`."""
        in_flight = self.started > len(self.errors)
        return [*self.errors, error_class] if in_flight else list(self.errors)
