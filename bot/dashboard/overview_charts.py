"""The overview's charts over the range the admin picked (bot/dashboard/ranges.py): messages
per guild, replies, LLM calls, tokens and cost per model, a bar a day (a week past 120 days).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from markupsafe import Markup

from bot.dashboard import ranges
from bot.dashboard.base import Dashboard
from bot.dashboard.charts import money, stacked_chart


@dataclass(frozen=True, slots=True)
class Overview:
    """What the overview draws and totals over one range."""

    span: ranges.Range
    charts: list[Markup]
    usage: list[Any]  # UsageDay, one per UTC day of the range
    messages: list[int]  # per guild, as the guilds are listed


def day_labels(days: Sequence[date]) -> list[str]:
    """`May 04`, or `May 2026` when the days span more than a year."""
    if days and (days[-1] - days[0]).days > 366:
        return [day.strftime("%b %Y") for day in days]
    return [day.strftime("%b %d") for day in days]


def _chart(
    draw: Callable[..., Markup],
    title: str,
    days: Sequence[date],
    series: dict[str, Sequence[float]],
    **options: Any,
) -> Markup:
    shown, values = ranges.binned(days, series)
    per = "week" if len(shown) < len(days) else "day"
    return draw(title.format(per=per), day_labels(shown), values, **options)


async def build(board: Dashboard, key: str, guilds: Sequence[Any]) -> Overview:
    activity, now = board.views.activity, board.memory.clock.now()
    firsts = await asyncio.gather(*(activity.first_day(g.guild_id, g.timezone) for g in guilds))
    span = ranges.resolve(key, now.astimezone(UTC).date(), firsts)
    counts = await asyncio.gather(
        *(activity.messages(g.guild_id, g.timezone, days=span.days, now=now) for g in guilds)
    )
    # LLM usage is counted on the real UTC day its calls happened (as `memorybot usage`), while
    # messages follow the clock a --now / MEMORYBOT_NOW may fix to an imported history's days.
    usage = await activity.usage(days=span.days, now=datetime.now(UTC))
    days = [line.day for line in usage]
    models = sorted({model for line in usage for model in line.tokens_by_model})
    message_days = [c.day for c in counts[0]] if counts else days
    charts = [
        _chart(
            stacked_chart,
            "Messages per {per}",
            message_days,
            {g.name: [c.count for c in rows] for g, rows in zip(guilds, counts, strict=True)},
        ),
        _chart(stacked_chart, "Replies per {per}", days, {"replies": [u.replies for u in usage]}),
        _chart(stacked_chart, "LLM calls per {per}", days, {"calls": [u.calls for u in usage]}),
        _chart(
            stacked_chart,
            "Tokens per {per} and model",
            days,
            {m: [line.tokens_by_model.get(m, 0) for line in usage] for m in models},
        ),
        _chart(
            stacked_chart,
            "Estimated cost per {per} and model (USD)",
            days,
            {m: [line.cost_by_model.get(m, 0.0) for line in usage] for m in models},
            fmt=money,
        ),
    ]
    totals = [sum(c.count for c in rows) for rows in counts]
    return Overview(span, charts, usage, totals)


async def guild_chart(board: Dashboard, key: str, guild_id: int, timezone: str) -> Markup:
    """A guild page's messages per day over the same range control."""
    activity, now = board.views.activity, board.memory.clock.now()
    first = await activity.first_day(guild_id, timezone)
    span = ranges.resolve(key, now.astimezone(UTC).date(), [first])
    counts = await activity.messages(guild_id, timezone, days=span.days, now=now)
    title = f"Messages per {{per}} ({timezone})"
    return _chart(
        stacked_chart, title, [c.day for c in counts], {"messages": [c.count for c in counts]}
    )
