"""The one rule for "does this sentence restate that statement", and the sentence splitter it
reads with: the facts service, the summary filter and the offline model must all agree."""

from __future__ import annotations

import pytest

from memory.core.text import split_sentences
from memory.facts._text import covers, strip_forgotten
from memory.language import drop_restating, restates
from memory.llm.offline._facts import forget as offline_forget
from memory.summaries import drop_forgotten

ALICE = ("Alice", "alice_w")


def test_a_paraphrase_in_another_tense_restates_the_statement() -> None:
    # Inflection does not matter: a past-tense retelling still tells the forgotten fact.
    assert restates("Alice liked pizza a lot.", "likes pizza")
    assert restates(
        "She said she really loves pineapple pizzas!", "Alice loves pineapple pizza", names=ALICE
    )
    assert restates("alice_w is living in Berlin now.", "alice lives in Berlin", names=ALICE)


def test_names_are_ignored_only_when_given() -> None:
    assert restates("She liked pizza.", "Alice likes pizza", names=ALICE)
    # Without the member's names "alice" is a word the sentence must hold like any other.
    assert not restates("She liked pizza.", "Alice likes pizza")
    # A name is ignored as a whole word, not as a stem: "Liv" does not hide "lives".
    assert restates("She lives in Oslo.", "Liv lives in Oslo", names=["Liv"])
    assert not restates("Liv moved to Oslo.", "Liv lives in Oslo", names=["Liv"])


def test_unrelated_or_partly_overlapping_sentences_are_kept() -> None:
    assert not restates("Alice went to the gym.", "alice likes pizza", names=ALICE)
    assert not restates("Alice likes sushi.", "alice likes pizza", names=ALICE)
    assert not restates(
        "Alice ordered a pizza with ham.", "Alice loves pineapple pizza", names=ALICE
    )
    # All or nothing: four of five content words is another fact, not the forgotten one.
    assert not restates("Alice has a big black dog.", "alice has a big black cat", names=ALICE)


def test_negation_is_not_understood_so_the_sentence_goes() -> None:
    # Erring on the side of forgetting: a denial still names the forgotten fact.
    assert restates("She doesn't like pizza anymore.", "alice likes pizza", names=ALICE)


def test_cyrillic_statements_match_across_case_endings() -> None:
    names = ["Алиса"]
    assert restates("Она очень любила пиццу.", "Алиса любит пиццу", names=names)
    assert restates("Алиса живёт в Москве.", "Алиса живет в Москве", names=names)
    assert not restates("Алиса любит суши.", "Алиса любит пиццу", names=names)
    text = "Алиса любит пиццу! Вчера Алиса ходила в спортзал."
    assert drop_restating(text, ["алиса любит пиццу"], names=names) == (
        "Вчера Алиса ходила в спортзал.",
        1,
    )


def test_empty_inputs_match_nothing() -> None:
    assert not restates("", "alice likes pizza")
    assert not restates("Alice likes pizza.", "")
    # Only names and stopwords: no claim, so nothing restates it (not every sentence naming her).
    assert not restates("Alice is here.", "she is alice", names=ALICE)
    assert drop_restating("", ["alice likes pizza"]) == ("", 0)
    assert drop_restating("Alice likes pizza.", []) == ("Alice likes pizza.", 0)
    assert drop_restating("Alice likes pizza.", ["  "]) == ("Alice likes pizza.", 0)
    assert split_sentences("") == [] and split_sentences(" \n ") == []


def test_text_is_left_as_it_was_unless_a_sentence_goes() -> None:
    text = "Alice has a cat.\n\nAlice  plays chess."
    assert drop_restating(text, ["alice likes pizza"], names=ALICE) == (text, 0)
    assert drop_restating(text, ["she has a cat"], names=ALICE) == ("Alice plays chess.", 1)


def test_sentences_split_outside_quotes_and_at_every_line_break() -> None:
    text = 'alice said: "I moved. It is great!" Then she left.\nBob wrote "hi\nAlice likes pizza'
    assert split_sentences(text) == [
        'alice said: "I moved. It is great!"',
        "Then she left.",
        'Bob wrote "hi',
        "Alice likes pizza",
    ]


@pytest.mark.parametrize(
    ("sentence", "statement", "expected"),
    [
        ("Alice likes pizza a lot!", "alice likes pizza", True),
        ("She likes pizza.", "alice likes pizza", True),
        ("Alice likes sushi.", "alice likes pizza", False),
        ("Alice is moving to Berlin next month.", "alice moves to Berlin", True),
        ("Alice lives in Rome.", "alice lives in Berlin", False),
        ("Алиса любит пиццу.", "алиса любит пиццу", True),
    ],
)
def test_facts_summaries_and_the_offline_model_draw_the_same_line(
    sentence: str, statement: str, expected: bool
) -> None:
    assert restates(sentence, statement, names=ALICE) is expected
    assert covers(sentence, statement, ALICE) is expected
    assert (strip_forgotten(sentence, [statement], ALICE) == "") is expected
    assert (drop_forgotten(sentence, [statement], ALICE)[1] == 1) is expected
    found, _ = offline_forget(sentence, statement, name="Alice", aliases=["alice_w"])
    assert found is expected
