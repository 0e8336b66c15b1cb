"""Learned facts: what a stretch of chat revealed about members, kept with provenance.

They come out of the same call that reads the stretch (no call of their own). A statement on a
subject the member already has a current fact for replaces it when it says something else (moved
from Recife to Madrid: Madrid is current, Recife kept as history) and confirms it otherwise. A
statement restating something the member asked to forget is never stored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date

import asyncpg

from db import learned as store
from db.types import Connection
from memory.core.models import ChatMessage
from memory.language import (
    content_tokens,
    content_words,
    jaccard,
    restates,
    restates_any,
    without_names,
)
from memory.llm import LearnedItem
from memory.summaries._forgetting import ForgottenAbout

_log = logging.getLogger(__name__)


MessageTokens = list[tuple[ChatMessage, set[str]]]


def _message_tokens(
    messages: Sequence[ChatMessage],
    read: dict[int, tuple[tuple[str, str], ...]],
    names: Sequence[str],
) -> MessageTokens:
    """Each message's content words without the member's names: each message is read once
    per stretch (`read`), then filtered for each member's names."""
    found = []
    for message in messages:
        if message.message_id not in read:
            read[message.message_id] = content_words(message.content)
        found.append((message, without_names(read[message.message_id], names)))
    return found


def _provenance(
    item_tokens: set[str], user_id: int, messages: MessageTokens
) -> tuple[list[int], int | None]:
    """The messages the statement came from (its author's first, then anyone naming them)."""
    scored = []
    for message, tokens in messages:
        overlap = jaccard(item_tokens, tokens)
        if overlap > 0:
            scored.append((message.author_id != user_id, -overlap, message))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    ids = [entry[2].message_id for entry in scored[:3]]
    return ids, (scored[0][2].author_id if scored else None)


async def store_learned(
    conn: Connection,
    guild_id: int,
    day: date,
    items: Sequence[LearnedItem],
    messages: Sequence[ChatMessage],
    forgotten: Sequence[ForgottenAbout],
    names: dict[int, list[str]],
) -> set[int]:
    """Merge a stretch's learned items into the store; the members whose learned facts changed
    as a context shows them (a new fact, or one said again on a later day): their cached
    contexts are stale. A fact said again the same day changes nothing a context shows."""
    stored: set[int] = set()
    by_member = {about.user_id: about for about in forgotten}
    words_of: dict[int, tuple[tuple[str, str], ...]] = {}
    read: dict[int, MessageTokens] = {}
    for item in items:
        try:
            user_id = int(item.user_id.strip().strip("<@!>"))
        except ValueError:
            continue
        statement = " ".join(item.statement.split())[:300]
        subject = item.subject.strip().lower()[:80] or "other"
        member_names = names.get(user_id, [])
        about = by_member.get(user_id)
        if not statement or (
            about and restates_any(statement, about.statements, names=member_names)
        ):
            continue  # forgotten at the member's request: never learned again
        tokens = content_tokens(statement, ignore=member_names)
        if user_id not in read:
            read[user_id] = _message_tokens(messages, words_of, member_names)
        ids, said_by = _provenance(tokens, user_id, read[user_id])
        current = await store.current_on_subject(conn, guild_id, user_id, subject)
        if current is not None and restates(current.statement, statement, names=member_names):
            await store.confirm_fact(conn, guild_id, current.id, day, ids)
            if day > current.last_seen:  # said again on a later day: its date moves
                stored.add(user_id)
            continue  # said again the same day: what a context shows of it is unchanged
        await store.insert_fact(
            conn,
            guild_id,
            user_id,
            subject=subject,
            statement=statement,
            said_by=said_by,
            message_ids=ids,
            day=day,
        )
        stored.add(user_id)
    return stored


async def learned_lines(pool: asyncpg.Pool, guild_id: int, user_id: int) -> list[str]:
    """A member's current learned facts as lines a model reads (the reply tools' answer)."""
    facts = await store.current_facts(pool, guild_id, user_id)
    return [
        f"{fact.statement.rstrip('.')} (learned {fact.last_seen.isoformat()})." for fact in facts
    ]
