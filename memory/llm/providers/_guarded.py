"""A provider's guards: a requests-per-minute limiter per model (Gemini's quotas are per
model), shared with other processes when configured, and a concurrency cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from aiolimiter import AsyncLimiter

from memory.llm.providers._base import LLMProvider


@dataclass
class ProviderLimits:
    """Guards for one provider; None switches a guard off (the offline provider needs none)."""

    requests_per_minute: float | None = None
    max_concurrency: int | None = None
    model_requests_per_minute: Mapping[str, float] = field(default_factory=dict)
    # Makes a limiter shared with other processes, from a key and a rate; None: this process's.
    shared: Callable[[str, float], RequestLimiter] | None = None


class RequestLimiter(Protocol):
    async def acquire(self) -> None: ...


def local_limiter(requests_per_minute: float) -> AsyncLimiter:
    """This process's limiter for a rate. AsyncLimiter needs a capacity of at least one
    request; rates below one per minute stretch the period instead."""
    capacity = max(1.0, requests_per_minute)
    return AsyncLimiter(capacity, 60.0 * capacity / requests_per_minute)


class Guarded:
    """A provider with its limiters (one per model) and semaphore."""

    def __init__(self, provider: LLMProvider, limits: ProviderLimits) -> None:
        self.provider = provider
        self.limits = limits
        self.semaphore = (
            asyncio.Semaphore(limits.max_concurrency) if limits.max_concurrency else None
        )
        self._limiters: dict[str, RequestLimiter] = {}

    def limiter(self, model: str) -> RequestLimiter | None:
        rpm = self.limits.model_requests_per_minute.get(model, self.limits.requests_per_minute)
        if not rpm:
            return None
        if model not in self._limiters and self.limits.shared is not None:
            self._limiters[model] = self.limits.shared(f"{self.provider.name}:{model}", rpm)
        if model not in self._limiters:
            self._limiters[model] = local_limiter(rpm)
        return self._limiters[model]
