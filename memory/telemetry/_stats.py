"""Operational figures for `/memory stats`, computed from telemetry events in this process.

`UsageRollup` is a telemetry sink that keeps per-day LLM usage and cache counters (two days at
most, so memory stays flat however busy the bot is); the last hour of fallbacks comes from
`Telemetry.recent()`. Nothing here knows about Discord: the admin cog renders `StatsReport`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from memory.core.clock import ensure_aware
from memory.telemetry._view import event_time

_KEEP_DAYS = 2


@dataclass
class LLMUsage:
    """LLM requests of one purpose in one day."""

    purpose: str
    calls: int = 0
    errors: int = 0
    failovers: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class CacheUsage:
    name: str
    hits: int = 0
    misses: int = 0

    @property
    def hit_rate(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None


@dataclass
class StatsReport:
    day: date
    llm: list[LLMUsage] = field(default_factory=list)
    caches: list[CacheUsage] = field(default_factory=list)
    queue_depth: int | None = None
    fallbacks_last_hour: Counter[str] = field(default_factory=Counter)
    llm_failovers_last_hour: int = 0
    since: datetime | None = None

    @property
    def llm_calls(self) -> int:
        return sum(usage.calls for usage in self.llm)

    @property
    def tokens(self) -> tuple[int, int]:
        return (
            sum(usage.input_tokens for usage in self.llm),
            sum(usage.output_tokens for usage in self.llm),
        )


def _is_hit(event: dict[str, Any]) -> bool | None:
    if isinstance(event.get("hit"), bool):
        return bool(event["hit"])
    outcome = event.get("outcome")
    if outcome in ("hit", "miss"):
        return bool(outcome == "hit")
    return None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class UsageRollup:
    """Sink counting LLM calls/tokens per purpose and cache hits/misses per UTC day."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._llm: dict[date, dict[str, LLMUsage]] = {}
        self._cache: dict[date, dict[str, CacheUsage]] = {}
        self.since: datetime | None = None

    def seed(self, events: Iterable[dict[str, Any]]) -> None:
        """Count events emitted before the rollup was attached (Telemetry.recent())."""
        for event in events:
            self(event)

    def __call__(self, event: dict[str, Any]) -> None:
        moment = event_time(event)
        if moment is None:
            return
        day = moment.date()
        op = event.get("op")
        with self._lock:
            if self.since is None or moment < self.since:
                self.since = moment
            if op == "llm_call":
                self._count_llm(day, event)
            elif op == "cache":
                hit = _is_hit(event)
                if hit is not None:
                    name = str(event.get("cache", "?"))
                    usage = self._cache.setdefault(day, {}).setdefault(name, CacheUsage(name))
                    if hit:
                        usage.hits += 1
                    else:
                        usage.misses += 1
            else:
                return
            for old in sorted(set(self._llm) | set(self._cache))[:-_KEEP_DAYS]:
                self._llm.pop(old, None)
                self._cache.pop(old, None)

    def _count_llm(self, day: date, event: dict[str, Any]) -> None:
        outcome = event.get("outcome")
        if outcome == "degraded":
            return  # a verdict on an answer its ok event already counted, not a call
        purpose = str(event.get("purpose", "?"))
        usage = self._llm.setdefault(day, {}).setdefault(purpose, LLMUsage(purpose))
        usage.calls += 1
        if outcome == "error":
            usage.errors += 1
        elif outcome == "fallback":
            usage.failovers += 1
        if not event.get("tokens_estimated"):  # tokens servers reported; offline's are ours
            usage.input_tokens += _int(event.get("input_tokens"))
            usage.output_tokens += _int(event.get("output_tokens"))

    def llm_usage(self, day: date) -> list[LLMUsage]:
        with self._lock:
            usages = list(self._llm.get(day, {}).values())
        return sorted(usages, key=lambda usage: (-usage.calls, usage.purpose))

    def cache_usage(self, day: date) -> list[CacheUsage]:
        with self._lock:
            usages = list(self._cache.get(day, {}).values())
        return sorted(usages, key=lambda usage: usage.name)


def build_stats(
    rollup: UsageRollup,
    recent: Iterable[dict[str, Any]],
    *,
    now: datetime,
    queue_depth: int | None = None,
) -> StatsReport:
    """Today's usage (UTC) from the rollup; fallbacks of the last hour from recent events.

    `queue_depth` is the writer's live depth; without it the last ingest event's is used.
    """
    now = ensure_aware(now)
    hour_ago = now - timedelta(hours=1)
    fallbacks: Counter[str] = Counter()
    failovers = 0
    last_depth: int | None = None
    for event in recent:
        if event.get("op", "").startswith("ingest") and isinstance(event.get("queue_depth"), int):
            last_depth = event["queue_depth"]
        moment = event_time(event)
        if moment is None or moment < hour_ago:
            continue
        if event.get("op") == "fallback":
            fallbacks[str(event.get("reason") or event.get("served") or "unknown")] += 1
        elif event.get("op") == "llm_call" and event.get("outcome") == "fallback":
            failovers += 1
    today = now.date()
    return StatsReport(
        day=today,
        llm=rollup.llm_usage(today),
        caches=rollup.cache_usage(today),
        queue_depth=queue_depth if queue_depth is not None else last_depth,
        fallbacks_last_hour=fallbacks,
        llm_failovers_last_hour=failovers,
        since=rollup.since,
    )


def render_stats(report: StatsReport) -> str:
    """A compact plain-text block (fits a Discord message inside a code block)."""
    lines = [f"LLM calls today ({report.day.isoformat()} UTC): {report.llm_calls}"]
    tokens_in, tokens_out = report.tokens
    if report.llm:
        lines.append(f"  tokens in/out: {tokens_in}/{tokens_out}")
        lines.append(f"  {'purpose':<20}{'calls':>6}{'errors':>8}{'tok in':>9}{'tok out':>9}")
        for usage in report.llm:
            lines.append(
                f"  {usage.purpose:<20}{usage.calls:>6}{usage.errors:>8}"
                f"{usage.input_tokens:>9}{usage.output_tokens:>9}"
            )
    lines.append("Cache hit rates today:")
    if not report.caches:
        lines.append("  no cache lookups yet")
    for cache in report.caches:
        rate = cache.hit_rate
        shown = f"{rate:.0%}" if rate is not None else "-"
        lines.append(f"  {cache.name:<20}{shown:>6}  ({cache.hits} hits, {cache.misses} misses)")
    depth = "unknown" if report.queue_depth is None else str(report.queue_depth)
    lines.append(f"Ingest queue depth: {depth}")
    total = sum(report.fallbacks_last_hour.values())
    detail = ", ".join(f"{name} {n}" for name, n in sorted(report.fallbacks_last_hour.items()))
    lines.append(f"Memory fallbacks in the last hour: {total}" + (f" ({detail})" if detail else ""))
    lines.append(f"LLM provider failovers in the last hour: {report.llm_failovers_last_hour}")
    if report.since is not None:
        lines.append(f"Counting since {report.since.strftime('%Y-%m-%d %H:%M')} UTC")
    return "\n".join(lines)
