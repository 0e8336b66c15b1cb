"""What a question asks of episodes: a catch-up ("what did I miss?"), a channel, a day."""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory.language._dates import WEEKDAYS, last_weekday

_MISSED = re.compile(
    r"\b(what did i miss|what have i missed|what i missed|catch me up|fill me in"
    r"|что я пропустил|что я пропустила)\b",
    re.IGNORECASE,
)
_CHANNEL = re.compile(r"<#(\d+)>")
# "#general" typed as text (the console, a client that did not make it a mention).
_CHANNEL_NAME = re.compile(r"(?:^|\s)#([\w-]{1,100})", re.UNICODE)
# ISO, alone or starting a timestamp ("2023-07-01T10:00:00+00:00").
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})(?!\d)")
_MONTHS = (
    ("january", "jan", "января"),
    ("february", "feb", "февраля"),
    ("march", "mar", "марта"),
    ("april", "apr", "апреля"),
    ("may", "мая"),
    ("june", "jun", "июня"),
    ("july", "jul", "июля"),
    ("august", "aug", "августа"),
    ("september", "sep", "sept", "сентября"),
    ("october", "oct", "октября"),
    ("november", "nov", "ноября"),
    ("december", "dec", "декабря"),
)
_MONTH_OF = {name: index for index, names in enumerate(_MONTHS, start=1) for name in names}
_MONTH = "|".join(sorted(_MONTH_OF, key=len, reverse=True))
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
# "March 6", "Mar 6th, 2023" / "6 March", "6th of March 2023", "6 марта".
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+{_ORDINAL}\b{_YEAR}", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b{_ORDINAL}\s+(?:of\s+)?({_MONTH})\b\.?{_YEAR}", re.IGNORECASE)
# How many years back a date without its year may lie (its weekday, when named, decides).
_YEARS_BACK = 7


def asks_catch_up(text: str) -> bool:
    """'Bot, what did I miss?' and its kin."""
    return _MISSED.search(text) is not None


def asked_channel(text: str) -> int | None:
    match = _CHANNEL.search(text)
    return int(match.group(1)) if match else None


def asked_channel_name(text: str) -> str | None:
    """'#general' written as text (no mention), without its '#'."""
    match = _CHANNEL_NAME.search(text)
    return match.group(1) if match else None


def asked_day(text: str, today: date) -> date | None:
    """The day a question names: a date ("March 6", "6 March 2023", ISO), the day before
    yesterday, yesterday, today, a weekday (the last one). A date without a year is its latest
    past one (with the weekday the question names, if it names one: "Monday, March 6")."""
    lowered = text.lower()
    weekday = next(
        (index for index, name in enumerate(WEEKDAYS) if re.search(rf"\b{name}\b", lowered)),
        None,
    )
    named = _named_date(text, today, weekday)
    if named is not None:
        return named
    if "day before yesterday" in lowered or "позавчера" in lowered:
        return today - timedelta(days=2)
    if "yesterday" in lowered or "вчера" in lowered:
        return today - timedelta(days=1)
    if "today" in lowered or "сегодня" in lowered:
        return today
    if weekday is not None:
        return last_weekday(today, weekday)
    return None


def _named_date(text: str, today: date, weekday: int | None) -> date | None:
    if _ISO_DAY.search(text):
        return written_date(text)
    spelled = _spelled(text)
    if spelled is None:
        return None
    month, day, year = spelled
    return _dated(month, day, year, today, weekday)


def written_date(text: str) -> date | None:
    """A date written out with its year: ISO (a timestamp's too), "6 July 2023", "Thu 6 July
    2023" (what `day_label` writes), "July 6, 2023"; None for anything else, a year-less date
    included."""
    match = _ISO_DAY.search(text)
    if match:
        try:
            return date.fromisoformat(match.group(1))
        except ValueError:
            return None
    spelled = _spelled(text)
    if spelled is None:
        return None
    month, day, year = spelled
    return None if year is None else _valid(year, month, day)


def _spelled(text: str) -> tuple[int, int, int | None] | None:
    """(month, day, year or None) of the first date spelled with a month name."""
    found = _MONTH_DAY.search(text)
    if found is not None:
        month, day, year = found.group(1), found.group(2), found.group(3)
    elif (found := _DAY_MONTH.search(text)) is not None:
        day, month, year = found.group(1), found.group(2), found.group(3)
    else:
        return None
    return _MONTH_OF[month.lower()], int(day), int(year) if year else None


def _dated(month: int, day: int, year: int | None, today: date, weekday: int | None) -> date | None:
    """The date itself with a year; else the latest one not after today (with the weekday)."""
    if year is not None:
        return _valid(year, month, day)
    candidates = [
        found
        for back in range(_YEARS_BACK + 1)
        if (found := _valid(today.year - back, month, day)) is not None and found <= today
    ]
    matching = [found for found in candidates if weekday is None or found.weekday() == weekday]
    if matching or candidates:
        return (matching or candidates)[0]
    return None


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:  # "February 30"
        return None
