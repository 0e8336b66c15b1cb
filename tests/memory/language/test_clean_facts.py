"""What the learner keeps is a whole sentence about its member: LoCoMo-dev's learned facts
included "John is proud to have." and "Jon is passionate about dancing and it'd be great."
(issue 43: the learner's precision)."""

import pytest

from memory.language import is_clean_fact


@pytest.mark.parametrize(
    "statement",
    ["Alice has two dogs.", "Alice can swim.", "Alice is a nurse.", "Alice's cat is Tom."],
)
def test_a_whole_sentence_about_the_member_is_kept(statement: str) -> None:
    assert is_clean_fact(statement, "Alice")


@pytest.mark.parametrize(
    "statement",
    [
        "Alice is proud to have.",  # its object cut off
        "Alice even got.",
        "Alice is passionate about dancing and it'd be great.",  # a pronoun, verb attached
        "Alice loves what she does.",
        "Alice likes to.",
    ],
)
def test_a_cut_off_or_pronoun_sentence_is_not(statement: str) -> None:
    assert not is_clean_fact(statement, "Alice")
