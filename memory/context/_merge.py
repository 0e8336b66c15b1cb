"""The final context of one member: the 3-way merge of facts, today and history, and the
verbatim assembly used when no merge can be had. Both are bounded by CONTEXT_MAX_CHARS.

Facts win: in the merge prompt, and in the fallback where they are placed first and cut last.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import KW_ONLY, dataclass, field
from datetime import date
from typing import Any

from db.stored_memory import StoredMemory
from memory.core.telemetry import Telemetry
from memory.core.text import split_sentences
from memory.llm import LLMBadOutput, MemoryLLM, PromptMember
from memory.summaries import BuildStats, ForgottenAbout, drop_forgotten, drop_guild_forgotten

_log = logging.getLogger(__name__)

ELLIPSIS = "…"
HISTORY_DAYS = 6  # days 2-7: yesterday and the five days before it


def content_hash(*parts: object) -> str:
    """A stable hash of JSON-friendly parts (the merge cache key and last-known-good check)."""
    payload = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class ContextInputs:
    """What one member's context is built from; summaries are stored here already cleaned of
    forgotten statements (see `clean`)."""

    guild_id: int
    timezone: str
    today: date
    member: PromptMember
    facts: str
    forgotten: list[str]
    guild_forgotten: list[ForgottenAbout] = field(default_factory=list)
    today_text: str = ""
    history_text: str = ""
    newest_text: str = ""  # the newer days, when the narrative is a day or two behind
    history_days: list[date] = field(default_factory=list)
    told: str = ""  # the explicit facts alone (`facts` adds the learned ones)

    @property
    def names(self) -> list[str]:
        return [self.member.name, *self.member.aliases]

    @property
    def told_chars(self) -> int:
        """Characters of the facts members asked the bot to remember (the rest was learned)."""
        return len(self.told) if self.facts.startswith(self.told) else len(self.facts)

    @property
    def learned_chars(self) -> int:
        """Characters of facts the bot learned from chat (`with_learned`'s section)."""
        return len(self.facts) - self.told_chars

    def clean(self, text: str) -> str:
        """`text` without sentences restating anything forgotten about this member, or about
        another member it names."""
        text = drop_forgotten(text, self.forgotten, self.names)[0]
        return drop_guild_forgotten(text, self.member.user_id, self.guild_forgotten)[0].strip()

    def content_hash(self, max_chars: int) -> str:
        """The merge cache key: equal inputs give an equal merge, in any process. Today's
        notes are not part of it: they are attached after the merge, so a new hour's notes
        never force a new merge."""
        return content_hash(
            self.facts,
            self.history_text,
            sorted(self.forgotten),
            self.member.name,
            max_chars,
        )

    def sources_meta(self) -> dict[str, Any]:
        """Stored next to the context: what it was built from, to judge it as a fallback."""
        return {
            "facts_hash": content_hash(self.facts),
            "forgotten_hash": content_hash(sorted(self.forgotten)),
            "facts_chars": len(self.facts),
            "today_chars": len(self.today_text),
            "history_chars": len(self.history_text),
            "day": self.today.isoformat(),
            "history_days": [day.isoformat() for day in self.history_days],
        }


def bound(text: str, max_chars: int) -> str:
    """`text` cut to `max_chars`, at a sentence end when one is near, else at a word."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    if max_chars <= 0:
        return ""
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


# Shares of the context kept for what is attached after the merge, when it is present: today's
# notes, and the newer days of a narrative a day or two behind. A merge that fills its length
# would otherwise leave no room for the news.
TODAY_SHARE = 0.35
NEWER_SHARE = 0.3
TODAY_LABEL = "Today: "


def attach_today(merged: str | None, today: str, max_chars: int, *, newest: str = "") -> str | None:
    """The merged facts and history, the newer days verbatim when the narrative is behind
    (`newest`), then today's notes verbatim, all within `max_chars`; each attached part keeps
    its share when the others would fill the rest."""
    head, tail = attached(merged, today, max_chars, newest=newest)
    return (head + tail) or None


def attached(
    merged: str | None, today: str, max_chars: int, *, newest: str = ""
) -> tuple[str, str]:
    """`attach_today` in two parts: the merged text (the very string given when it fits, so
    a cache keeping both parts pays for the merge once) and what follows it."""
    merged, newest, today = (merged or "").strip(), newest.strip(), today.strip()
    if not merged and not newest:
        return (bound(today, max_chars) if today else ""), ""
    room_today = min(len(TODAY_LABEL) + len(today) + 1, int(max_chars * TODAY_SHARE))
    room_newer = min(len(newest) + 1, int(max_chars * NEWER_SHARE))
    parts = [bound(merged, max_chars - room_newer - room_today)] if merged else []
    if newest:
        parts.append(bound(newest, max_chars - _joined(parts) - room_today))
    if today:
        tail = bound(today, max_chars - _joined(parts) - len(TODAY_LABEL))
        parts.append(TODAY_LABEL + tail if tail else "")
    parts = [part for part in parts if part]
    if not merged:
        return "\n".join(parts), ""
    return parts[0], "".join("\n" + part for part in parts[1:])


def _joined(parts: list[str]) -> int:
    """Characters `parts` take once joined, with the line break the next part needs."""
    return sum(len(part) + 1 for part in parts if part)


def keep_newest(facts: str, max_chars: int) -> str:
    """Facts within `max_chars`, dropping the oldest first: a blob grows at its end, so the
    newest facts are last, and those are the ones a member most likely means."""
    sentences = split_sentences(facts)
    while len(sentences) > 1 and len(" ".join(sentences)) > max_chars:
        sentences.pop(0)
    return bound(" ".join(sentences), max_chars)


def assemble_fallback(facts: str, today: str, history: str, max_chars: int) -> str | None:
    """Facts and the latest summaries verbatim, labelled, within `max_chars` (facts first).
    Facts alone are served as they are, like a build with nothing else to merge."""
    if facts.strip() and not today.strip() and not history.strip():
        return keep_newest(facts, max_chars)
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


@dataclass(frozen=True, slots=True, eq=False)
class ContextMerger:
    """Runs the 3-way merge; one source alone is served as it is (no call needed)."""

    llm: MemoryLLM
    max_chars: int
    _: KW_ONLY
    telemetry: Telemetry

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
            only = present[0]
            return (
                keep_newest(only, self.max_chars) if only is facts else bound(only, self.max_chars)
            )
        names = [member.name, *member.aliases]
        with self.telemetry.span(
            "merge",
            guild_id=guild_id,
            user_id=member.user_id,
            facts_chars=len(facts),
            today_chars=len(today),
            history_chars=len(history),
        ) as event:
            stats.llm("merge")
            text = await self.llm.summaries.merge_context(
                guild_id=guild_id,
                member=member,
                facts=facts,
                today=today,
                history=history,
                max_chars=self.max_chars,
                forgotten=forgotten,
            )
            text, dropped = drop_forgotten(text, forgotten, names)
            if not text.strip():
                raise LLMBadOutput("merge: empty context")
            text = bound(text, self.max_chars)
            event.update(chars=len(text), dropped_sentences=dropped or None)
        return text


def fallback_context(
    stored: StoredMemory, inputs: ContextInputs, max_chars: int
) -> tuple[str | None, str]:
    """(text, what was served) from what is stored, without any LLM call, best first:

    1. the last known good context, if it was built from the current facts and forgotten
       statements (otherwise it may lack a new fact or still hold a forgotten one);
    2. facts + the latest stored summaries verbatim ("facts_and_summaries" / "summaries");
    3. facts alone ("facts"); 4. nothing ("none").
    Fills `inputs.today_text`/`history_text` with what was used, for the report.
    """
    inputs.today_text = inputs.clean(" ".join(stored.notes))
    known_good = stored.merged
    if (
        known_good is not None
        and known_good.sources.get("facts_hash") == content_hash(inputs.facts)
        and known_good.sources.get("forgotten_hash") == content_hash(sorted(inputs.forgotten))
    ):
        merged = inputs.clean(known_good.context)
        text = attach_today(merged, inputs.today_text, max_chars) if merged else None
        if text:
            return text, "last_known_good"
    if stored.narrative is not None:
        history = stored.narrative[1]
    else:  # no narrative yet: the latest daily summaries themselves, newest first
        history = " ".join(text for day, text in reversed(stored.recent) if day != inputs.today)
    inputs.history_text = inputs.clean(history)
    text = assemble_fallback(inputs.facts, inputs.today_text, inputs.history_text, max_chars)
    if text is None:
        return None, "none"
    if inputs.today_text or inputs.history_text:
        return text, "facts_and_summaries" if inputs.facts else "summaries"
    return text, "facts"
