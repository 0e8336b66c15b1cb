"""Offline answers to "what did we talk about on Monday?": the reply prompt's asked episodes.

When a question names a day or a channel, the reply's `<episode>` memory starts with that
day's episodes, one line each ("#general 2026-05-06 18:02–18:09: title. summary"), before the
channel's current topic ("Current topic: ..."). Without a model the honest answer to a
question about what was talked about is those lines, as they are.
"""

from __future__ import annotations

import html
import re

from memory.core.text import truncate
from memory.language import asks_what_was_talked_about

_EPISODE = re.compile(r"<episode\b[^>]*>(?P<body>.*?)</episode\s*>", re.S | re.I)
# An asked episode's line: an optional channel, then its local start "YYYY-MM-DD HH:MM".
_ASKED_LINE = re.compile(r"^(?:#\S+ )?\d{4}-\d{2}-\d{2} \d{2}:\d{2}\S*\s?.*$")
_LINE_CHARS = 420


def asked_episodes(prompt: str) -> list[str]:
    """The asked episodes' lines of a reply prompt, unescaped, in the prompt's order."""
    found = _EPISODE.search(prompt)
    if found is None:
        return []
    lines = html.unescape(found.group("body")).splitlines()
    return [line.strip() for line in lines if _ASKED_LINE.match(line.strip())]


def talked_answer(prompt: str, message: str, max_chars: int) -> str:
    """ "Here is what was talked about: ..." from the asked episodes; "" when the question is
    not about talk or the prompt carries no asked episode."""
    if not asks_what_was_talked_about(message):
        return ""
    episodes = asked_episodes(prompt)
    if not episodes:
        return ""
    kept = ["Here is what was talked about:"]
    budget = max_chars - len(kept[0])
    for line in episodes:
        line = "• " + truncate(line, _LINE_CHARS)
        if len(line) + 1 > budget:
            break
        kept.append(line)
        budget -= len(line) + 1
    return "\n".join(kept)
