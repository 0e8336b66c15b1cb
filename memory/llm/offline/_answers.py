"""Offline answers to people: "what do you know about X" and plain replies.

Without a model the bot cannot chat, and it says so. What it can do honestly is repeat what
it remembers: a question about the past is answered with the recalled message(s) that answer
it, quoted with who said it and when; otherwise replies quote the memory context for whoever
the message is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memory.core.text import end_sentence, mentions_name, truncate
from memory.language import QUESTION_WORDS
from memory.llm.offline._recalled import best_hits, question_of, recalled_messages, said
from memory.llm.offline._talked import talked_answer

REPLY_MAX_CHARS = 1800  # under Discord's 2000, so the offline reply is one message
_ABOUT_SELF = re.compile(r"\b(?:about me|who am i|know me|remember me|my name)\b", re.IGNORECASE)


def whois(name: str, memory: str, *, max_chars: int = REPLY_MAX_CHARS) -> str:
    """A plain answer from the member's memory, or an honest "nothing yet"."""
    memory = memory.strip()
    if not memory:
        return f"I don't know anything about {name} yet."
    return truncate(f"Here's what I know about {name}: {end_sentence(memory)}", max_chars)


def _memories(inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for item in inputs.get("memories") or []:
        if isinstance(item, Mapping):
            name = str(item.get("name") or "").strip()
            context = str(item.get("context") or "").strip()
            if name:
                found.append((name, context))
    return found


def reply(inputs: Mapping[str, Any], *, max_chars: int = REPLY_MAX_CHARS) -> str:
    """Answer from memory for the members the message is about; otherwise say what I am."""
    message = str(inputs.get("message") or "")
    author = str(inputs.get("author_name") or "").strip()
    answer = talked_answer(str(inputs.get("prompt") or ""), message, max_chars)
    answer = answer or _from_recalled(inputs, message, author, max_chars)
    if answer:
        return answer
    memories = _memories(inputs)
    relevant = [(n, c) for n, c in memories if n != author and mentions_name(message, n)]
    if _ABOUT_SELF.search(message):
        relevant = [(n, c) for n, c in memories if n == author] + relevant
    greeting = f"Hi {author}! " if author else "Hi! "
    if not relevant:
        return (
            f"{greeting}I'm running in offline mode without a language model, so I can't "
            "really chat right now, but I keep remembering what people share. Ask me "
            '"what do you know about NAME" to see what I remember about someone.'
        )
    lines = ["I'm in offline mode, so I can only tell you what I remember."]
    lines.extend(_about(name, context, author) for name, context in _dedupe(relevant))
    budget = max_chars
    kept: list[str] = []
    for line in lines:
        line = truncate(line, max(40, budget - 1))
        if len(line) + 1 > budget:
            break
        kept.append(line)
        budget -= len(line) + 1
    return "\n".join(kept)


def _from_recalled(inputs: Mapping[str, Any], message: str, author: str, max_chars: int) -> str:
    """The recalled messages of the reply prompt that answer the question, quoted; "" when
    the prompt recalled none or none shares a word with the question."""
    prompt = str(inputs.get("prompt") or "")
    hits = recalled_messages(prompt) if "<recalled" in prompt else []
    if not hits:
        return ""
    ignore = [str(inputs.get("bot_name") or ""), author, *sorted(QUESTION_WORDS)]
    chosen = best_hits(message or question_of(prompt), hits, ignore=ignore)
    kept: list[str] = []
    budget = max_chars
    for line in (said(hit) for hit in chosen):
        if len(line) + 1 > budget:
            break
        kept.append(line)
        budget -= len(line) + 1
    return "\n".join(kept)


def _about(name: str, context: str, author: str) -> str:
    who = "you" if name == author else name
    if not context:
        return f"I don't know anything about {who} yet."
    return f"About {who}: {end_sentence(context)}"


def _dedupe(items: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[str] = set()
    unique: list[tuple[str, str]] = []
    for name, context in items:
        if name not in seen:
            seen.add(name)
            unique.append((name, context))
    return unique
