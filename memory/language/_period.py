"""The stretch of time a question asks about: "on 1 May, 2022", "in July", "in March 2023",
"in 2022", and relative to the asking day: "yesterday", "last week", "two months ago", "on
Monday". A search prefers what was said then (memory/recall), since people ask about the past
by when it happened as often as by what it was."""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory.language._asked import _MONTH, _MONTH_OF, _named_date
from memory.language._dates import COUNT, WEEKDAYS, count_of, last_weekday, month_start

# "in July", "in July 2023", "July 2023", "during March", "early May 2022" (not "may" alone: a
# modal verb as often as a month).
_IN_MONTH = re.compile(
    rf"\b(?:in|during|of|since|early|late|mid)\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?"
    rf"|\b({_MONTH})\.?,?\s+(\d{{4}})\b",
    re.IGNORECASE,
)
_IN_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_WEEKDAY = "|".join(WEEKDAYS)
# Relative to the day the question is asked: what a member types in a chat ("what did bob say
# yesterday?"). A weekday alone is its last past one; "this weekend" is this week's.
_RELATIVE = re.compile(
    r"\b(the day before yesterday|yesterday|last night|today|tonight|this morning"
    r"|this afternoon|this evening|вчера|позавчера|сегодня"
    rf"|(?:last|this) (?:week|weekend|month|year|{_WEEKDAY})"
    rf"|{COUNT} (?:days?|weeks?|months?|years?) ago"
    rf"|on (?:{_WEEKDAY}))\b",
    re.IGNORECASE,
)
_DAYS_BACK = {
    "the day before yesterday": 2,
    "позавчера": 2,
    "yesterday": 1,
    "last night": 1,
    "вчера": 1,
}
_TODAY = ("today", "tonight", "this morning", "this afternoon", "this evening", "сегодня")


def asked_period(text: str, today: date) -> tuple[date, date] | None:
    """[first day, day after the last) of the day, month or year a question names; None when
    it names none. A month without a year is its latest one that has begun by `today`."""
    day = _named_date(text, today, None)
    if day is not None:
        return day, day + timedelta(days=1)
    found = _IN_MONTH.search(text)
    if found is not None:
        name = found.group(1) or found.group(3)
        year_text = found.group(2) or found.group(4)
        month = _MONTH_OF[name.lower()]
        year = int(year_text) if year_text else today.year - (month > today.month)
        start = date(year, month, 1)
        end = date(year + month // 12, month % 12 + 1, 1)
        return start, end
    year_found = _IN_YEAR.search(text)
    if year_found is not None:
        year = int(year_found.group(1))
        return date(year, 1, 1), date(year + 1, 1, 1)
    relative = _RELATIVE.search(text)
    return (
        None if relative is None else _relative(" ".join(relative.group(0).lower().split()), today)
    )


def _relative(phrase: str, today: date) -> tuple[date, date] | None:
    if phrase in _DAYS_BACK:
        day = today - timedelta(days=_DAYS_BACK[phrase])
        return day, day + timedelta(days=1)
    if phrase in _TODAY:
        return today, today + timedelta(days=1)
    words = phrase.split()
    if words[-1] == "ago":
        return _ago(count_of(" ".join(words[:-2])), words[-2].rstrip("s"), today)
    if words[0] == "on" or words[1] in WEEKDAYS:
        return _weekday(words[0], WEEKDAYS.index(words[1]), today)
    return _this_or_last(words[0] == "last", words[1], today)


def _ago(count: int | None, unit: str, today: date) -> tuple[date, date] | None:
    if not count:
        return None
    if unit == "day":
        day = today - timedelta(days=count)
        return day, day + timedelta(days=1)
    if unit == "week":  # "two weeks ago": the week around that day
        day = today - timedelta(weeks=count)
        return day - timedelta(days=3), day + timedelta(days=4)
    if unit == "month":
        return _month(today, -count)
    return date(today.year - count, 1, 1), date(today.year - count + 1, 1, 1)


def _weekday(which: str, weekday: int, today: date) -> tuple[date, date]:
    """ "on/last Monday": the last Monday before today; "this Monday": this week's."""
    if which == "this":
        day = today - timedelta(days=today.weekday() - weekday)
    else:
        day = last_weekday(today, weekday)
    return day, day + timedelta(days=1)


def _this_or_last(last: bool, unit: str, today: date) -> tuple[date, date]:
    """This or last calendar week, weekend, month or year; "this" up to the end of today."""
    tomorrow = today + timedelta(days=1)
    monday = today - timedelta(days=today.weekday())
    if unit == "week":
        return (monday - timedelta(weeks=1), monday) if last else (monday, tomorrow)
    if unit == "weekend":
        saturday = monday + timedelta(days=5) - timedelta(weeks=last)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        return _month(today, -1) if last else (today.replace(day=1), tomorrow)
    year = today.year - last
    return date(year, 1, 1), (date(year + 1, 1, 1) if last else tomorrow)


def _month(today: date, step: int) -> tuple[date, date]:
    return month_start(today, step), month_start(today, step + 1)
