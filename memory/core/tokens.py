"""A deterministic token estimate, so prompt budgets hold without a tokenizer download.

Roughly four characters per token for Latin text; non-ASCII characters count more because
tokenizers split them finer. Overestimating is the safe side for a budget.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    # Counted in C: a per-character Python loop was a visible share of a reply's CPU time.
    ascii_chars = len(text) if text.isascii() else len(text.encode("ascii", "ignore"))
    other = len(text) - ascii_chars
    return max(1, -(-ascii_chars // 4) + other)


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
