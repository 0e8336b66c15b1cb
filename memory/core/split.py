"""Split long replies into Discord-sized parts at line, then sentence, then word boundaries."""

from __future__ import annotations

import re

DISCORD_LIMIT = 2000
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def split_message(text: str, limit: int = DISCORD_LIMIT) -> list[str]:
    """Parts of at most `limit` characters whose concatenation keeps all the words in order.

    Breaks prefer a newline, then a sentence end, then a space; a single word longer than the
    limit is cut hard. Empty input gives no parts.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    text = text.strip()
    parts: list[str] = []
    while len(text) > limit:
        window = text[: limit + 1]
        cut = window.rfind("\n")
        if cut < limit // 3:
            ends = [match.start() for match in _SENTENCE_END.finditer(window)]
            cut = ends[-1] if ends and ends[-1] >= limit // 3 else window.rfind(" ")
        if cut < limit // 3:
            cut = limit
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        parts.append(text)
    return parts
