"""What a context build produced and cost, for `memorybot memory show` and `/memory context`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any


@dataclass(frozen=True)
class SourceReport:
    """One input of the context: how big it was and where it came from."""

    name: str
    chars: int
    detail: str = ""


@dataclass(frozen=True)
class ContextReport:
    """The assembled context of one member with its sources, budget and costs."""

    guild_id: int
    user_id: int
    member_name: str
    text: str | None
    day: date
    timezone: str
    max_chars: int
    sources: list[SourceReport] = field(default_factory=list)
    cache_hits: dict[str, int] = field(default_factory=dict)
    cache_misses: dict[str, int] = field(default_factory=dict)
    llm_calls: dict[str, int] = field(default_factory=dict)
    days_summarised: list[date] = field(default_factory=list)
    fallback: str | None = None
    fallback_reason: str | None = None
    budget_seconds: float | None = None
    elapsed_ms: float = 0.0
    shared: bool = False

    @property
    def total_llm_calls(self) -> int:
        return sum(self.llm_calls.values())

    @property
    def chars(self) -> int:
        return len(self.text or "")

    def source(self, name: str) -> SourceReport | None:
        return next((source for source in self.sources if source.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["day"] = self.day.isoformat()
        data["days_summarised"] = [day.isoformat() for day in self.days_summarised]
        data["total_llm_calls"] = self.total_llm_calls
        data["chars"] = self.chars
        return data
