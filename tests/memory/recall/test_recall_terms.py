"""The question side of recall, without a database: what is searched, what is capped, which
words are kept and how they weigh, and relative dates resolved against the day they were said."""

from __future__ import annotations

from datetime import date

from db.recall import TermStat
from memory.recall import MAX_WORDS, query_terms, resolve_dates, was_capped, worth_searching
from memory.recall._terms import MAX_TERMS, plan


def test_greetings_and_thanks_are_not_searched_anything_else_is() -> None:
    for small_talk in ("thanks!", "hi there", "good morning :)", "Thank you so much", "lol ok"):
        assert not worth_searching(small_talk), small_talk
    for question in (
        "What are Caroline's plans for the summer?",
        "Where did Joanna get her ideas?",
        "How many times has Melanie gone to the beach?",
        "melanie?",
    ):
        assert worth_searching(question), question


def test_a_long_question_is_capped_in_characters_and_words() -> None:
    huge = "lighthouse " + " ".join(f"w{n}" for n in range(50_000))
    terms = query_terms(huge)
    assert len(terms) == MAX_WORDS and terms[0] == "lighthouse"
    assert was_capped(huge) and not was_capped("when was the lighthouse tour?")


def test_the_rarest_words_are_kept_and_weigh_most() -> None:
    stats = [
        TermStat("melanie", "melanie", 30_000, 31_000),
        TermStat("museum", "museum", 3, 4),
        TermStat("go", "go", 200_000, None),
        *(TermStat(f"w{n}", f"w{n}", 100 + n, None) for n in range(10)),
    ]
    found = plan(stats, 1_000_000)
    assert found is not None and len(found.terms) == MAX_TERMS
    assert found.terms[0].lexeme == "museum"
    assert found.terms[0].weight > next(t.weight for t in found.terms if t.lexeme == "w0") + 3
    assert all(t.lexeme not in ("go", "melanie") for t in found.terms)  # the commonest dropped
    # A named member's name is a boost, not a term.
    named = plan(stats[:2], 1_000_000, names=["Melanie"])
    assert named is not None and [t.lexeme for t in named.terms] == ["museum"]
    assert named.names == "'melanie'"
    assert named.candidates == ("'museum':*", "'melanie' & 'museum':*")
    # Short words are never prefixes.
    short = plan([TermStat("art", "art", 5, None)], 100)
    assert short is not None and short.candidates == ("'art'",)


def test_relative_dates_resolve_against_the_day_said() -> None:
    monday = date(2023, 5, 8)
    assert resolve_dates("Yesterday I took the kids to the museum", monday) == [
        "yesterday = Sun 7 May 2023"
    ]
    assert resolve_dates("see you tomorrow, and last week was fun", monday) == [
        "tomorrow = Tue 9 May 2023",
        "last week = the week of Mon 1 May 2023",
    ]
    assert resolve_dates("two weeks ago we met, next friday again", monday) == [
        "two weeks ago = around Mon 24 April 2023",
        "next friday = Fri 12 May 2023",
    ]
    assert resolve_dates("last month and last year", monday) == [
        "last month = April 2023",
        "last year = 2022",
    ]
    assert resolve_dates("nothing relative here", monday) == []
