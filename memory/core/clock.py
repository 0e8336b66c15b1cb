"""Time as a dependency, so imported history can be summarised "as of" a past date and tests
can move time forward without sleeping."""

from __future__ import annotations

import os
import time
from datetime import UTC, date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo


class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware (UTC)."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Seconds for measuring elapsed time (rate limits), never set back."""
        return time.monotonic()


class FixedClock:
    """A clock that only moves when told to (tests, `--now`)."""

    def __init__(self, at: datetime) -> None:
        self._at = ensure_aware(at)
        self._moved = 0.0  # seconds set or advanced since creation

    def now(self) -> datetime:
        return self._at

    def monotonic(self) -> float:
        """Real elapsed seconds plus every move of the clock: a limit measured with it lifts
        as real time passes (a `--now` session is not stuck at one instant) and when a test
        advances the clock."""
        return time.monotonic() + self._moved

    def set(self, at: datetime) -> None:
        at = ensure_aware(at)
        self._moved += (at - self._at).total_seconds()
        self._at = at

    def advance(self, delta: timedelta) -> None:
        self._at += delta
        self._moved += delta.total_seconds()


def ensure_aware(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_now(value: str) -> datetime:
    """Parse an ISO timestamp or date given to `--now` / MEMORYBOT_NOW."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"--now: not an ISO date or timestamp: {value!r}") from exc
    return ensure_aware(moment)


def clock_from_env(now: str | None = None) -> Clock:
    """A fixed clock when `--now` or MEMORYBOT_NOW is given, else the system clock."""
    value = now or os.environ.get("MEMORYBOT_NOW")
    return FixedClock(parse_now(value)) if value else SystemClock()


def local_day(moment: datetime, timezone: str) -> date:
    """The calendar day of `moment` in the guild's timezone."""
    return ensure_aware(moment).astimezone(ZoneInfo(timezone)).date()


def day_bounds(day: date, timezone: str) -> tuple[datetime, datetime]:
    """UTC start (inclusive) and end (exclusive) of a local calendar day."""
    zone = ZoneInfo(timezone)
    start = datetime(day.year, day.month, day.day, tzinfo=zone)
    # The end is the next calendar day's midnight, so DST transitions give 23h/25h days.
    nxt = day + timedelta(days=1)
    end = datetime(nxt.year, nxt.month, nxt.day, tzinfo=zone)
    return start.astimezone(UTC), end.astimezone(UTC)
