"""The stretch of time a question names, which a recall search prefers."""

from __future__ import annotations

from datetime import date

from memory.language import asked_period

TODAY = date(2023, 8, 20)  # a Sunday


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


def test_a_time_relative_to_the_asking_day() -> None:
    def asked(question: str) -> tuple[date, date] | None:
        return asked_period(question, TODAY)

    assert asked("what did bob say yesterday?") == (date(2023, 8, 19), date(2023, 8, 20))
    assert asked("что было вчера?") == (date(2023, 8, 19), date(2023, 8, 20))
    assert asked("the day before yesterday?") == (date(2023, 8, 18), date(2023, 8, 19))
    assert asked("what did sam post this morning") == (TODAY, date(2023, 8, 21))
    assert asked("what happened last week") == (date(2023, 8, 7), date(2023, 8, 14))
    assert asked("and this week?") == (date(2023, 8, 14), date(2023, 8, 21))
    assert asked("what did we do last weekend") == (date(2023, 8, 12), date(2023, 8, 14))
    assert asked("news from last month") == (date(2023, 7, 1), date(2023, 8, 1))
    assert asked("what did bob cook this month") == (date(2023, 8, 1), date(2023, 8, 21))
    assert asked("where did she travel last year?") == (date(2022, 1, 1), date(2023, 1, 1))


def test_so_long_ago_and_a_weekday() -> None:
    assert asked_period("three days ago?", TODAY) == (date(2023, 8, 17), date(2023, 8, 18))
    two_weeks = asked_period("what did bob do two weeks ago", TODAY)
    assert two_weeks == (date(2023, 8, 3), date(2023, 8, 10))  # the week around 6 August
    assert asked_period("a couple of months ago", TODAY) == (date(2023, 6, 1), date(2023, 7, 1))
    assert asked_period("what was it 2 years ago", TODAY) == (date(2021, 1, 1), date(2022, 1, 1))
    monday = (date(2023, 8, 14), date(2023, 8, 15))
    assert asked_period("what did sam say on Monday", TODAY) == monday
    assert asked_period("last monday, what did he cook", TODAY) == monday
    # A Sunday's "on Sunday" is last week's: the question asks about the past.
    assert asked_period("what did we eat on sunday?", TODAY) == (
        date(2023, 8, 13),
        date(2023, 8, 14),
    )


def test_a_written_date_wins_over_a_relative_one() -> None:
    assert asked_period("what did Jo finish last Friday, 23 January 2022?", TODAY) == (
        date(2022, 1, 23),
        date(2022, 1, 24),
    )
