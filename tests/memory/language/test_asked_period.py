"""The stretch of time a question names, which a recall search prefers."""

from __future__ import annotations

from datetime import date

from memory.language import asked_period

TODAY = date(2023, 8, 20)


def test_a_named_day_month_or_year() -> None:
    assert asked_period("What movie did Jo watch on 1 May, 2022?", TODAY) == (
        date(2022, 5, 1),
        date(2022, 5, 2),
    )
    assert asked_period("Which spot did Jo visit in May?", TODAY) == (
        date(2023, 5, 1),
        date(2023, 6, 1),
    )
    assert asked_period("What did Nate do in April 2022?", TODAY) == (
        date(2022, 4, 1),
        date(2022, 5, 1),
    )
    assert asked_period("what happened in December 2022", TODAY) == (
        date(2022, 12, 1),
        date(2023, 1, 1),
    )
    assert asked_period("Where did she travel in 2021?", TODAY) == (
        date(2021, 1, 1),
        date(2022, 1, 1),
    )


def test_a_month_not_yet_begun_this_year_is_last_years() -> None:
    assert asked_period("what did we cook in October?", TODAY) == (
        date(2022, 10, 1),
        date(2022, 11, 1),
    )


def test_no_period_and_may_the_verb() -> None:
    assert asked_period("What pet does Caroline have?", TODAY) is None
    assert asked_period("I may come later, what did bob say?", TODAY) is None
    assert asked_period("who won 2048 points", TODAY) is None
