"""Relative dates resolved against the day a line was said: durations up to that day, chat's
short weekdays, weekends ago (`memory.language.resolve_dates`)."""

from __future__ import annotations

from datetime import date

import pytest

from memory.language import resolve_dates

MONDAY = date(2023, 7, 17)


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        (
            "I've had them for 3 years now and they bring me joy",
            "for 3 years now = since around 2020",
        ),
        ("Seven years now, and I've found my muses", "seven years now = since around 2016"),
        ("I've known these friends for 4 years, since I moved", "for 4 years = since around 2019"),
        (
            "I've been playing for about four months now",
            "for about four months now = since around March 2023",
        ),
        ("we haven't talked for a few days!", "for a few days = since Fri 14 July 2023"),
        ("we went camping two weekends ago", "two weekends ago = the weekend of Sat 8 July 2023"),
        ("I joined a new group last Tues", "last tues = Tue 11 July 2023"),
        ("wanna see my moves next Fri?", "next fri = Fri 21 July 2023"),
    ],
)
def test_a_phrase_is_resolved_against_the_day_it_was_said(line: str, meant: str) -> None:
    assert resolve_dates(line, MONDAY) == [meant]


@pytest.mark.parametrize(
    "line",
    [
        "We were teammates for four years in high school. We've played since",  # it ended
        "He was part of our family for 10 years.",
        "I have a friend who lived there for 3 years",  # the perfect is another clause's
        "I'm going to Japan for 2 years",  # not yet
        "she is two years older",  # no duration
        "this sat well with me",  # not a weekday
        "the sun was out",
    ],
)
def test_a_duration_that_may_have_ended_or_a_word_like_a_weekday_is_left(line: str) -> None:
    assert resolve_dates(line, MONDAY) == []
