"""Every characters-per-token figure of the house, so prompt budgets hold without a
tokenizer download.

The estimate of a text (the reply path's budgets, the conversation window) counts roughly
four characters per token for Latin text; non-ASCII characters count more because tokenizers
split them finer. A limit a model enforces (its prompt limit, an answer's max_tokens) is
converted at three: fewer characters per token, so a pack of members fits a small model and an
answer is not cut short. Unifying the two would change what real models are asked (packs,
max_tokens), so both stay, named here and nowhere else.
"""

from __future__ import annotations

# The estimate: characters per token of ASCII text.
CHARS_PER_TOKEN = 4
# A model's limit, converted on the safe side (low: more tokens per character).
LIMIT_CHARS_PER_TOKEN = 3


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    # Counted in C: a per-character Python loop was a visible share of a reply's CPU time.
    ascii_chars = len(text) if text.isascii() else len(text.encode("ascii", "ignore"))
    other = len(text) - ascii_chars
    return max(1, -(-ascii_chars // CHARS_PER_TOKEN) + other)


def estimated_chars(tokens: int) -> int:
    """Characters of ASCII text `tokens` hold by the estimate."""
    return tokens * CHARS_PER_TOKEN


def chars_within_limit(tokens: int) -> int:
    """Characters a prompt may hold under a model's limit of `tokens` (the safe side)."""
    return tokens * LIMIT_CHARS_PER_TOKEN


def tokens_to_write(chars: int) -> int:
    """Output tokens an answer of `chars` characters may need (the safe side)."""
    return chars // LIMIT_CHARS_PER_TOKEN


def trim_to_tokens(text: str, budget: int) -> str:
    """Cut `text` (at a word boundary when possible) so it fits `budget` tokens."""
    if estimate_tokens(text) <= budget:
        return text
    if budget <= 0:
        return ""
    low, high = 0, len(text)
    while low < high:  # longest prefix that fits
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) + 1 <= budget:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    space = cut.rfind(" ")
    if space > low // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
