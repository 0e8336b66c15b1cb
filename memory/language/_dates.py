"""Relative dates in a recalled message, resolved against the day it was said.

"Yesterday we finally fixed the boat", said on Mon 2023-05-08, means Sun 2023-05-07: the
model reading it months later cannot know that unless it is told. Each phrase found is turned
into `phrase = date` ("yesterday = Sun 2023-05-07"); the text itself is left as it was said.
A duration that runs up to the day it was said ("I've had them for 3 years now", "seven years
now") says since when ("since around 2020"): "when did she get them?" asks for that. One
that may have ended ("we were teammates for four years") is left alone: only with "now" or a
perfect tense before it ("I've known them for 4 years") is it counted back from that day.
English phrases only; anything else passes unresolved.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
# Weekdays as chat shortens them, after "last" or "next" only ("last Tues", "next Fri"): alone,
# "sat" and "sun" are other words.
_SHORT_WEEKDAYS = {
    "mon": 0,
    "tue": 1,
    "tues": 1,
    "wed": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}
# "3 days ago", "a couple of weeks ago": how many, in words or digits.
COUNT = r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
# How long something has gone on: "for 3 years (now)", "for about four months now", "seven
# years now" (a duration without "for" only with "now": "two years older" is none).
_HEDGE = r"(?:about|around|almost|nearly|over|just under|just over|more than|the past|the last) "
_UNITS = r"(?:days?|weeks?|months?|years?)"
_DURATION = rf"for (?:{_HEDGE})?{COUNT} {_UNITS}(?: now)?|(?:{_HEDGE})?{COUNT} {_UNITS} now"
_PHRASE = re.compile(
    r"\b(the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow"
    r"|this morning|this evening|this afternoon"
    rf"|(?:last|next|this) (?:week|weekend|month|year|{'|'.join(WEEKDAYS)})"
    rf"|(?:last|next) (?:{'|'.join(_SHORT_WEEKDAYS)})"
    rf"|{COUNT} (?:days?|weeks?|weekends?|months?|years?) ago"
    rf"|{_DURATION}"
    rf"|(?:on )?(?:{'|'.join(WEEKDAYS)}))\b",
    re.IGNORECASE,
)
# A perfect tense before a duration in its sentence: it runs up to the day it was said.
_PERFECT = re.compile(
    r"\b(?:have|has|been|haven't|hasn't|haven’t|hasn’t|\w+'ve|\w+’ve)(?!\w)", re.IGNORECASE
)
# Where the clause a duration sits in starts: a sentence's end, a comma or semicolon, or a
# relative pronoun ("I have a friend who lived there for 3 years": "lived" is the verb).
_CLAUSE_START = re.compile(r"[.!?]\s|[,;]|\b(?:who|which|that|where|when)\b", re.IGNORECASE)
_SIMPLE = {
    "the day before yesterday": -2,
    "the day after tomorrow": 2,
    "yesterday": -1,
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "this morning": 0,
    "this evening": 0,
    "this afternoon": 0,
}
MAX_PHRASES = 4


def day_label(day: date) -> str:
    """`Thu 6 July 2023`: the month by name, as people say it and ask about it ("in July")."""
    return f"{day:%a} {day.day} {day:%B %Y}"


def resolve_dates(text: str, said_on: date) -> list[str]:
    """`phrase = date` for each relative date in `text` (at most MAX_PHRASES, no repeats)."""
    found: dict[str, str] = {}
    for match in _PHRASE.finditer(text):
        phrase = " ".join(match.group(0).lower().split())
        if phrase in found:
            continue
        if _is_duration(phrase) and not _runs_until_said(text, match.start(), phrase):
            continue
        meaning = _meaning(phrase, said_on)
        if meaning:
            found[phrase] = meaning
        if len(found) >= MAX_PHRASES:
            break
    return [f"{phrase} = {meaning}" for phrase, meaning in found.items()]


def _is_duration(phrase: str) -> bool:
    return phrase.startswith("for ") or phrase.endswith(" now")


def _runs_until_said(text: str, start: int, phrase: str) -> bool:
    """Whether a duration goes on up to the day it was said: "now", or a perfect tense
    before it in its clause ("I've known them for 4 years", not "we were teammates for four
    years" or "I have a friend who lived there for 3 years")."""
    if phrase.endswith(" now"):
        return True
    before = _CLAUSE_START.split(text[:start])[-1]
    return _PERFECT.search(before) is not None


def _meaning(phrase: str, day: date) -> str | None:
    if phrase in _SIMPLE:
        return day_label(day + timedelta(days=_SIMPLE[phrase]))
    words = phrase.split()
    if words[-1] == "ago":
        return _ago(" ".join(words[:-2]), words[-2], day)
    if _is_duration(phrase):
        return _since(phrase, day)
    if words[0] in ("last", "next", "this"):
        return _relative(words[0], words[1], day)
    weekday = WEEKDAYS.index(words[-1])
    before = last_weekday(day, weekday)
    after = next_weekday(day, weekday)
    return f"{day_label(before)} (past) or {day_label(after)} (coming)"


def count_of(count: str) -> int | None:
    """The number a COUNT match says ("a couple of" is 2)."""
    return int(count) if count.isdigit() else _NUMBERS.get(count.removeprefix("a ").strip())


def _ago(count: str, unit: str, day: date) -> str | None:
    number = count_of(count)
    if not number:
        return None
    unit = unit.rstrip("s")
    if unit == "day":
        return day_label(day - timedelta(days=number))
    if unit == "week":
        return f"around {day_label(day - timedelta(weeks=number))}"
    if unit == "weekend":
        return _relative("this", "weekend", day - timedelta(weeks=number))
    if unit == "month":
        return f"around {_month(day, -number)}"
    return f"around {day.year - number}"


_DURATION_PARTS = re.compile(rf"({COUNT}) ({_UNITS})(?: now)?$")


def _since(phrase: str, day: date) -> str | None:
    """ "for 3 years" said in 2023: "since around 2020" (days: the day itself)."""
    parts = _DURATION_PARTS.search(phrase)
    number = count_of(parts.group(1)) if parts else None
    if not parts or not number:
        return None
    unit = parts.group(2).rstrip("s")
    if unit == "day":
        return f"since {day_label(day - timedelta(days=number))}"
    start = _ago(str(number), unit, day)
    return f"since {start}" if start else None


def _relative(which: str, unit: str, day: date) -> str:
    step = {"last": -1, "next": 1, "this": 0}[which]
    monday = day - timedelta(days=day.weekday())
    if unit == "week":
        return f"the week of {day_label(monday + timedelta(weeks=step))}"
    if unit == "weekend":
        return f"the weekend of {day_label(monday + timedelta(days=5, weeks=step))}"
    if unit == "month":
        return _month(day, step)
    if unit == "year":
        return str(day.year + step)
    weekday = _SHORT_WEEKDAYS[unit] if unit in _SHORT_WEEKDAYS else WEEKDAYS.index(unit)
    if which == "last":
        return day_label(last_weekday(day, weekday))
    if which == "next":
        return day_label(next_weekday(day, weekday))
    return day_label(monday + timedelta(days=weekday))


def _month(day: date, step: int) -> str:
    return month_start(day, step).strftime("%B %Y")


def last_weekday(day: date, weekday: int) -> date:
    """The last `weekday` (0: Monday) before `day`, a week back when `day` is one."""
    return day - timedelta(days=(day.weekday() - weekday - 1) % 7 + 1)


def next_weekday(day: date, weekday: int) -> date:
    """The next `weekday` (0: Monday) after `day`, a week on when `day` is one."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)


def month_start(day: date, step: int) -> date:
    """The first day of the month `step` months from `day`'s (negative: back)."""
    index = day.year * 12 + day.month - 1 + step
    return date(index // 12, index % 12 + 1, 1)


def without_dates(text: str) -> str:
    """`text` without its relative dates ("this morning I went..." -> " I went..."): when a
    hit's words seed another search, "morning" is not what it was about."""
    return _PHRASE.sub(" ", text)
