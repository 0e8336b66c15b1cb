"""Forgetting must stick: drop every summary sentence that restates a forgotten statement.

Stored daily summaries may predate a forget, and a model may ignore the prompt constraint, so
each text is filtered again before it is merged or served. Whether a sentence restates a
statement is `memory.language.restates`: every content word of it, names of the member aside
(summaries often say "she" instead), the rule the facts service and the offline model use.

Other members' summaries can repeat it too ("Bob said Alice loves pineapple pizza"), so
`drop_guild_forgotten` also drops such sentences from anyone's text when they name the member.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import asyncpg

from db.summaries import forgotten_in_guild
from db.types import Connection
from memory.core.models import Member
from memory.core.text import drop_sentences, mentions_name
from memory.language import drop_restating, restates_any

_log = logging.getLogger(__name__)


def drop_forgotten(
    text: str, forgotten: Iterable[str], names: Iterable[str] = ()
) -> tuple[str, int]:
    """`text` without the sentences restating any forgotten statement; (text, sentences dropped)."""
    text, dropped = drop_restating(text, forgotten, names=names)
    if dropped:
        _log.debug("dropped %d sentence(s) restating forgotten statements", dropped)
    return text, dropped


@dataclass(frozen=True, slots=True)
class ForgottenAbout:
    """Statements forgotten about one member, with the names that point at that member."""

    user_id: int
    names: tuple[str, ...]
    statements: tuple[str, ...]

    def named_in(self, sentence: str) -> bool:
        return any(mentions_name(sentence, name) for name in self.names)

    def restated_in(self, sentence: str) -> bool:
        return restates_any(sentence, self.statements, names=self.names)


def drop_guild_forgotten(
    text: str, subject_id: int, forgotten: Sequence[ForgottenAbout]
) -> tuple[str, int]:
    """`text` about `subject_id` without sentences restating anything forgotten in the guild:
    the subject's own statements always, another member's when the sentence names them."""
    if not forgotten:
        return text, 0

    def restated(sentence: str) -> bool:
        return any(
            (about.user_id == subject_id or about.named_in(sentence))
            and about.restated_in(sentence)
            for about in forgotten
        )

    return drop_sentences(text, restated)


async def load_guild_forgotten(
    db: asyncpg.Pool | Connection, guild_id: int
) -> list[ForgottenAbout]:
    """Everything forgotten in the guild, by member, ready for `drop_guild_forgotten`."""
    return forgotten_about(await forgotten_in_guild(db, guild_id))


def forgotten_about(rows: Sequence[tuple[Member, Sequence[str]]]) -> list[ForgottenAbout]:
    """`forgotten_in_guild`'s rows (read now, or held) ready for `drop_guild_forgotten`."""
    return [
        ForgottenAbout(member.user_id, member.names, tuple(statements))
        for member, statements in rows
    ]
