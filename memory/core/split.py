"""Split long replies into Discord-sized parts at line, then sentence, then word boundaries."""

from __future__ import annotations

import re

DISCORD_LIMIT = 2000
# A reply never becomes more Discord messages than this: a runaway model answer (200,000
# characters once) is cut, with a marker, instead of flooding the channel.
MAX_PARTS = 3
CUT_MARKER = " […]"
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


def reply_parts(text: str, limit: int = DISCORD_LIMIT, max_parts: int = MAX_PARTS) -> list[str]:
    """`split_message`, capped at `max_parts`; the last kept part ends with a cut marker when
    anything was left out (cut at a word, never mid-word)."""
    parts = split_message(text, limit)
    if len(parts) <= max_parts:
        return parts
    kept = parts[:max_parts]
    last = kept[-1]
    room = limit - len(CUT_MARKER)
    if len(last) > room:
        space = last.rfind(" ", 0, room)
        last = last[: space if space > room // 2 else room].rstrip()
    kept[-1] = last + CUT_MARKER
    return kept
