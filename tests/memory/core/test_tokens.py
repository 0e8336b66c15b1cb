"""The token estimate budgets every prompt: four ASCII characters to a token, every other
character one token, whatever the text (emoji, lone surrogates from a broken client)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory.core.tokens import (
    chars_within_limit,
    estimate_tokens,
    estimated_chars,
    tokens_to_write,
    trim_to_tokens,
)


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


def test_a_models_limit_is_converted_on_the_safe_side() -> None:
    """A pack under a model's limit never holds more than the estimate says the limit holds,
    and an answer's max_tokens covers at least what the estimate says its length needs."""
    for tokens in (1_000, 8_192):
        assert chars_within_limit(tokens) <= estimated_chars(tokens)
    for chars in (300, 2_000):
        assert tokens_to_write(chars) >= estimate_tokens("x" * chars)


def test_characters_per_token_are_written_in_one_module() -> None:
    root = Path(__file__).resolve().parents[3]
    written = [
        str(path.relative_to(root))
        for folder in ("memory", "bot", "db", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        if re.search(r"^\s*\w*CHARS_PER_TOKEN\s*=", path.read_text(encoding="utf-8"), re.M)
    ]
    assert written == ["memory/core/tokens.py"]
