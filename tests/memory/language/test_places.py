"""Places in chat: which questions ask where a member has been, and which lines name a place
(`memory.language._places`). The member lane puts such lines first for such questions."""

from __future__ import annotations

import pytest

from memory.language import asks_for_places, names_a_place


@pytest.mark.parametrize(
    "question",
    [
        "which countries has Sam been to?",
        "What cities did Alex visit last year?",
        "Where has Priya travelled?",
        "where did pilar move from?",
        "what states has Noor vacationed in?",
        "which country has Tim visited most often?",
        "has Robin been to any big towns lately?",
        "which country was Sam visiting last week?",
        "where is Alex travelling next?",
    ],
)
def test_questions_asking_where_a_member_has_been(question: str) -> None:
    assert asks_for_places(question)


@pytest.mark.parametrize(
    "question",
    [
        "What country is Sam's grandma from?",  # one fact, not a list of places been to
        "What kind of place does Alex want to open?",
        "What show did Priya host where she taught baking?",  # a relative "where"
        "what did pilar learn at the travel club?",
        "what is Noor into these days?",
    ],
)
def test_questions_not_asking_where(question: str) -> None:
    assert not asks_for_places(question)


@pytest.mark.parametrize(
    "line",
    [
        "took this pic in Peru last year",
        "we went to the UK for a week",
        "just got back from Nagoya!",
        "I visited Cork with my cousins",
        "my trip through the Andes was unreal",
        "In Peru we ate dinner at ten every night",  # first in the sentence
    ],
)
def test_lines_naming_a_place(line: str) -> None:
    assert names_a_place(line)


@pytest.mark.parametrize(
    "line",
    [
        "back in May we had a party",  # a month
        "see you from Monday on",  # a weekday
        "we're all at Easter lunch",  # a holiday
        "talk to you in a bit",  # nothing capitalised
        "went in and I found it",  # "I" is not a place
        "Peru is on my list",  # a name without a word of place before it
    ],
)
def test_lines_naming_no_place(line: str) -> None:
    assert not names_a_place(line)
