"""Which day and channel a question about past talk names ("what did we talk about in
#general on Monday, March 6?"): the day's episodes are what the reply gets."""

from __future__ import annotations

from datetime import UTC, date, datetime

from memory.episodes._views import Episode, working_memory
from memory.language import asked_channel, asked_channel_name, asked_day

TODAY = date(2024, 3, 5)  # a Tuesday


def test_a_date_without_its_year_is_the_latest_one_past() -> None:
    assert asked_day("what did we talk about on March 6?", TODAY) == date(2023, 3, 6)
    assert asked_day("what did we talk about on March 4?", TODAY) == date(2024, 3, 4)
    assert asked_day("what did we chat about on 6 March", TODAY) == date(2023, 3, 6)
    assert asked_day("what happened on the 6th of March", TODAY) == date(2023, 3, 6)
    assert asked_day("what were we talking about on Mar 4th", TODAY) == date(2024, 3, 4)
    assert asked_day("о чём говорили 4 марта?", TODAY) == date(2024, 3, 4)


def test_the_weekday_named_with_a_date_picks_its_year_not_the_last_such_weekday() -> None:
    # 2022-03-06 was a Sunday, 2023-03-06 a Monday; "Monday" alone would be 2024-03-04.
    assert asked_day("on Sunday, March 6?", TODAY) == date(2022, 3, 6)
    assert asked_day("What did we talk about on Monday, March 6?", TODAY) == date(2023, 3, 6)
    assert asked_day("what did we talk about on Monday?", TODAY) == date(2024, 3, 4)


def test_a_year_iso_date_yesterday_and_nonsense() -> None:
    assert asked_day("on March 6, 2022", TODAY) == date(2022, 3, 6)
    assert asked_day("on 2023-07-01", TODAY) == date(2023, 7, 1)
    assert asked_day("what were we talking about yesterday?", TODAY) == date(2024, 3, 4)
    assert asked_day("and the day before yesterday?", TODAY) == date(2024, 3, 3)
    assert asked_day("о чём говорили позавчера?", TODAY) == date(2024, 3, 3)
    assert asked_day("what did we discuss on February 30?", TODAY) is None
    assert asked_day("what did we discuss in March?", TODAY) is None
    assert asked_day("what do you know about me?", TODAY) is None


def test_the_channel_by_mention_or_by_name() -> None:
    assert asked_channel("what did we talk about in <#991> yesterday") == 991
    assert asked_channel_name("what did we talk about in #general yesterday") == "general"
    assert asked_channel_name("what did we talk about yesterday") is None


def test_working_memory_leaves_out_the_message_being_answered_but_not_short_words() -> None:
    at = datetime(2026, 11, 20, tzinfo=UTC)
    episode = Episode(
        id=1,
        guild_id=2,
        channel_id=3,
        first_message_id=4,
        last_message_id=5,
        started_at=at,
        ended_at=at,
        message_count=6,
        member_ids=(1, 2),
        state="open",
        title="the sourdough starter finally bubbled",
        summary="ann, bo talked. ann: feed it rye bo: Bot, is rye flour better for a starter?",
        open_loops=("bo: Bot, is rye flour better for a starter?", "ann: who has a dutch oven?"),
    )
    # The composer gets the text addressed to it, without "Bot, ".
    text = working_memory(episode, "is rye flour better for a starter?")
    assert "better" not in text and "Open: ann: who has a dutch oven?" in text
    assert working_memory(episode, "ok") == working_memory(episode)
    assert "Bot, is rye flour better" in working_memory(episode)
