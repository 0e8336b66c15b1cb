"""What one context build cost: LLM calls by purpose and cache hits/misses by cache name.

Passed explicitly down the build so `memorybot memory show` and `/memory context` can tell an
admin exactly what a build did, even when parts of it ran in shared single-flight tasks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date


@dataclass
class BuildStats:
    llm_calls: Counter[str] = field(default_factory=Counter)
    cache_hits: Counter[str] = field(default_factory=Counter)
    cache_misses: Counter[str] = field(default_factory=Counter)
    days_summarised: list[date] = field(default_factory=list)

    def llm(self, purpose: str, count: int = 1) -> None:
        self.llm_calls[purpose] += count

    def cache(self, name: str, hit: bool) -> None:
        (self.cache_hits if hit else self.cache_misses)[name] += 1

    @property
    def total_llm_calls(self) -> int:
        return sum(self.llm_calls.values())
