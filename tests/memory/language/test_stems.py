"""A search reads a regularly inflected word as its stem, matched as a prefix (issue 43:
"Where has Melanie camped?" shared no word with "we went camping")."""

import pytest

from memory.language import regular_stem


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("camped", "camp"),
        ("camping", "camp"),
        ("camps", "camp"),
        ("activities", "activit"),
        ("swimming", "swim"),
        ("stopped", "stop"),
        ("moved", "move"),
        ("classes", "class"),
        ("painted", "paint"),
        ("parents", "parent"),
    ],
)
def test_an_inflected_word_is_searched_by_its_stem(word: str, stem: str) -> None:
    assert regular_stem(word) == stem


@pytest.mark.parametrize(
    # Too short to stand as a prefix ("kid", "new" would find "kidney", "newt"), not inflected
    # ("evening" is not a form of "even"), or not a plain word.
    "word",
    [
        "kids",
        "news",
        "hiking",
        "business",
        "focus",
        "camp",
        "concert",
        "evening",
        "берлине",
        "b2b2s",
    ],
)
def test_a_word_without_a_usable_stem_is_searched_as_it_is(word: str) -> None:
    assert regular_stem(word) is None
