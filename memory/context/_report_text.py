"""A context report in words: the one renderer behind `memorybot memory show`, the console's
`/memory` and the admin's `/memory context` (which wraps the same lines for Discord)."""

from __future__ import annotations

from memory.core.report import ContextReport


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) or "none"


def report_heading(report: ContextReport, guild_name: str | None = None) -> str:
    """`guild_name`: the name the admin typed, shown with the id instead of the id alone."""
    guild = f"{guild_name} (id {report.guild_id})" if guild_name else str(report.guild_id)
    return (
        f"Memory of {report.member_name} (id {report.user_id}) in guild {guild}, "
        f"as of {report.day} ({report.timezone})"
    )


def report_details(report: ContextReport) -> list[str]:
    """Where the context came from and what it cost, one fact per line."""
    lines = ["Sources:"]
    for source in report.sources:
        detail = f"  [{source.detail}]" if source.detail else ""
        lines.append(f"  {source.name:<8} {source.chars:>5} chars{detail}")
    lines.append(f"Context: {report.chars}/{report.max_chars} chars")
    budget = "none (full build)" if report.budget_seconds is None else f"{report.budget_seconds}s"
    lines.append(f"Budget: {budget}; took {report.elapsed_ms:.0f} ms")
    if report.fallback:
        lines.append(f"Fallback: {report.fallback} (reason: {report.fallback_reason})")
    lines.append(f"Cache hits: {_counts(report.cache_hits)}")
    lines.append(f"Cache misses: {_counts(report.cache_misses)}")
    lines.append(f"LLM calls: {report.total_llm_calls} ({_counts(report.llm_calls)})")
    if report.days_summarised:
        days = ", ".join(day.isoformat() for day in report.days_summarised)
        lines.append(f"Days summarised now: {days}")
    return lines


def format_report(report: ContextReport, guild_name: str | None = None) -> str:
    """The report for a terminal: the context first, then where it came from and its cost."""
    lines = [
        report_heading(report, guild_name),
        "",
        report.text if report.text else "(nothing known about this member)",
        "",
        *report_details(report),
    ]
    return "\n".join(lines) + "\n"
