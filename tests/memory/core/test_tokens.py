"""The token estimate budgets every prompt: four ASCII characters to a token, every other
character one token, whatever the text (emoji, lone surrogates from a broken client)."""

from __future__ import annotations

import pytest

from memory.core.tokens import estimate_tokens, trim_to_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("a", 1),
        ("abcd", 1),
        ("abcde", 2),
        ("héllo", 1 + 1),  # h, l, l, o: one token; é: one more
        ("日本語", 3),
        ("ok 🎉🎉", 1 + 2),
        ("\ud800abc", 1 + 1),  # a lone surrogate is one non-ASCII character
    ],
)
def test_estimate_counts_ascii_by_four_and_the_rest_one_each(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_a_trimmed_text_fits_its_budget() -> None:
    text = "word " * 400 + "日本語" * 50
    for budget in (1, 10, 99, 500):
        assert estimate_tokens(trim_to_tokens(text, budget)) <= budget
