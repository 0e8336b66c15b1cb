"""Which days the charts cover: a range the admin picks (`?range=`), by default since the
first stored message, so an imported history is on the charts and not only the last 30 days.

Long ranges are drawn a week per bar: a year of days would be bars a pixel wide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from aiohttp import web

# (query value, label, days; None: since the first message)
RANGES: tuple[tuple[str, str, int | None], ...] = (
    ("7", "7 days", 7),
    ("30", "30 days", 30),
    ("90", "90 days", 90),
    ("365", "a year", 365),
    ("all", "since the first message", None),
)
DEFAULT = "all"
# Bounds of "since the first message": at least a week shown, at most ten years.
MIN_DAYS, MAX_DAYS = 7, 3650
# More days than this are drawn a week per bar.
DAILY_BARS = 120


@dataclass(frozen=True, slots=True)
class Range:
    key: str
    days: int
    first: date

    @property
    def label(self) -> str:
        return f"since {self.first:%Y-%m-%d} ({self.days} days)"


def chosen(request: web.Request) -> str:
    """The `?range=` asked for (400 with a line for an unknown one)."""
    key = request.query.get("range", DEFAULT).strip() or DEFAULT
    if key not in {value for value, _, _ in RANGES}:
        choices = ", ".join(value for value, _, _ in RANGES)
        raise web.HTTPBadRequest(text=f"range must be one of {choices}")
    return key


def resolve(key: str, today: date, first_days: Sequence[date | None]) -> Range:
    """The days `key` covers up to `today`; "all" starts at the oldest of `first_days`."""
    fixed = next(days for value, _, days in RANGES if value == key)
    if fixed is None:
        known = [day for day in first_days if day is not None]
        fixed = (today - min(known)).days + 1 if known else 30
    days = max(MIN_DAYS, min(MAX_DAYS, fixed))
    return Range(key, days, today - timedelta(days=days - 1))


def links(current: str) -> list[tuple[str, str, bool]]:
    """(query value, label, is it the current one) for the range control."""
    return [(value, label, value == current) for value, label, _ in RANGES]


def binned(
    days: Sequence[date], series: dict[str, Sequence[float]]
) -> tuple[list[date], dict[str, list[float]]]:
    """Days and their values as they are, or summed a week per bar past DAILY_BARS days."""
    if len(days) <= DAILY_BARS:
        return list(days), {name: list(values) for name, values in series.items()}
    starts = list(range(0, len(days), 7))
    return [days[start] for start in starts], {
        name: [sum(values[start : start + 7]) for start in starts]
        for name, values in series.items()
    }
