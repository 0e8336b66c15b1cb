"""What an admin is shown about a served context: its sources, sizes, costs and fallback.

Kept apart from the build so the manager only decides *what* to serve; `ServedContext` is what
the warm path keeps of a build (the report needs nothing else).
"""

from __future__ import annotations

import time
from datetime import date

from memory.context._merge import ContextInputs
from memory.context._warm import ServedContext, WarmContexts
from memory.core.report import ContextReport, SourceReport
from memory.summaries import BuildStats


def served_context(
    inputs: ContextInputs, parts: tuple[str, str], warm: WarmContexts
) -> ServedContext:
    """The part of a build the warm path keeps and a report shows."""
    history_detail = (
        f"{inputs.history_days[0]}..{inputs.history_days[-1]} ({len(inputs.history_days)} days)"
        if inputs.history_days
        else "no summarised days"
    )
    return ServedContext(
        guild_id=inputs.guild_id,
        user_id=inputs.member.user_id,
        member_name=inputs.member.name,
        head=parts[0],
        tail=parts[1],
        today=inputs.today,
        timezone=inputs.timezone,
        facts_chars=len(inputs.facts),
        learned_chars=inputs.learned_chars,
        today_chars=len(inputs.today_text),
        history_chars=len(inputs.history_text),
        history_detail=history_detail,
        bucket=warm.bucket(inputs.timezone),
    )


def report_of(
    served: ServedContext,
    stats: BuildStats,
    max_chars: int,
    *,
    budget: float | None,
    started: float,
    shared: bool,
) -> ContextReport:
    return ContextReport(
        guild_id=served.guild_id,
        user_id=served.user_id,
        member_name=served.member_name,
        text=served.text,
        day=served.today,
        timezone=served.timezone,
        max_chars=max_chars,
        sources=[
            *_facts_sources(served.facts_chars - served.learned_chars, served.learned_chars),
            SourceReport("today", served.today_chars, served.today.isoformat()),
            SourceReport("history", served.history_chars, served.history_detail),
        ],
        cache_hits=dict(stats.cache_hits),
        cache_misses=dict(stats.cache_misses),
        llm_calls=dict(stats.llm_calls),
        days_summarised=sorted(stats.days_summarised),
        budget_seconds=budget,
        elapsed_ms=_elapsed_ms(started),
        shared=shared,
    )


def fallback_report(
    inputs: ContextInputs | None,
    *,
    guild_id: int,
    user_id: int,
    text: str | None,
    served: str,
    reason: str,
    today: date,
    max_chars: int,
    budget: float | None,
    started: float,
    shared: bool,
) -> ContextReport:
    """The report of a fallback; `inputs` is None when not even the facts could be read."""
    if inputs is not None:
        today = inputs.today
    sources = []
    if inputs is not None:
        sources = [
            *_facts_sources(inputs.told_chars, inputs.learned_chars),
            SourceReport("today", len(inputs.today_text), f"{today} (stored, verbatim)"),
            SourceReport("history", len(inputs.history_text), "stored, verbatim"),
        ]
    return ContextReport(
        guild_id=guild_id,
        user_id=user_id,
        member_name=inputs.member.name if inputs else f"user {user_id}",
        text=text,
        day=today,
        timezone=inputs.timezone if inputs else "UTC",
        max_chars=max_chars,
        sources=sources,
        fallback=served,
        fallback_reason=reason,
        budget_seconds=budget,
        elapsed_ms=_elapsed_ms(started),
        shared=shared,
    )


def _facts_sources(told: int, learned: int) -> list[SourceReport]:
    """Facts members asked to be remembered, and (when there are any) facts learned from
    chat: shown apart, so neither is mistaken for the other."""
    sources = [SourceReport("facts", told, "user_facts")]
    if learned:
        sources.append(SourceReport("learned", learned, "learned_facts"))
    return sources


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
