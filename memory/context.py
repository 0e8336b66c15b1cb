"""The final context of one member: the 3-way merge of facts, today and history, and the
verbatim assembly used when no merge can be had. Both are bounded by CONTEXT_MAX_CHARS.

Facts win: in the merge prompt, and in the fallback where they are placed first and cut last.
"""

from __future__ import annotations

import hashlib
import json
import logging

from memory.llm.base import LLMBadOutput
from memory.llm.schemas import PromptMember
from memory.llm.tasks import MemoryLLM
from memory.summaries.forgetting import drop_forgotten
from memory.summaries.stats import BuildStats
from memory.telemetry import Telemetry, get_telemetry

_log = logging.getLogger(__name__)

ELLIPSIS = "…"


def content_hash(*parts: object) -> str:
    """A stable hash of JSON-friendly parts (the merge cache key and last-known-good check)."""
    payload = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def bound(text: str, max_chars: int) -> str:
    """`text` cut to `max_chars`, at a sentence end when one is near, else at a word."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    if max_chars <= len(ELLIPSIS):
        return text[:max_chars]
    window = text[: max_chars - len(ELLIPSIS)]
    sentence_end = max(window.rfind(". "), window.rfind("! "), window.rfind("? "))
    if sentence_end >= max_chars // 2:
        return window[: sentence_end + 1]
    space = window.rfind(" ")
    if space >= max_chars // 2:
        window = window[:space]
    return window.rstrip(" ,;:") + ELLIPSIS


def assemble_fallback(facts: str, today: str, history: str, max_chars: int) -> str | None:
    """Facts and the latest summaries verbatim, labelled, within `max_chars` (facts first).
    Facts alone are served as they are, like a build with nothing else to merge."""
    if facts.strip() and not today.strip() and not history.strip():
        return bound(facts, max_chars)
    sections = [
        ("Facts", facts.strip()),
        ("Today", today.strip()),
        ("Recent days", history.strip()),
    ]
    parts: list[str] = []
    remaining = max_chars
    for label, body in sections:
        if not body:
            continue
        prefix = f"{label}: "
        separator = 1 if parts else 0
        room = remaining - len(prefix) - separator
        if room < 20:  # not enough room to say anything useful
            break
        piece = prefix + bound(body, room)
        parts.append(piece)
        remaining -= len(piece) + separator
    return "\n".join(parts) if parts else None


class ContextMerger:
    """Runs the 3-way merge; one source alone is served as it is (no call needed)."""

    def __init__(
        self, llm: MemoryLLM, max_chars: int, *, telemetry: Telemetry | None = None
    ) -> None:
        self._llm = llm
        self._max_chars = max_chars
        self._telemetry = telemetry or get_telemetry()

    async def merge(
        self,
        guild_id: int,
        member: PromptMember,
        *,
        facts: str,
        today: str,
        history: str,
        forgotten: list[str],
        stats: BuildStats,
    ) -> str | None:
        present = [text for text in (facts, today, history) if text.strip()]
        if not present:
            return None
        if len(present) == 1:
            return bound(present[0], self._max_chars)
        names = [member.name, *member.aliases]
        with self._telemetry.span(
            "merge",
            guild_id=guild_id,
            user_id=member.user_id,
            facts_chars=len(facts),
            today_chars=len(today),
            history_chars=len(history),
        ) as event:
            stats.llm("merge")
            text = await self._llm.merge_context(
                guild_id=guild_id,
                member=member,
                facts=facts,
                today=today,
                history=history,
                max_chars=self._max_chars,
                forgotten=forgotten,
            )
            text, dropped = drop_forgotten(text, forgotten, names)
            if not text.strip():
                raise LLMBadOutput("merge: empty context")
            text = bound(text, self._max_chars)
            event.update(chars=len(text), dropped_sentences=dropped or None)
        return text
