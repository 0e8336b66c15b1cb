"""A member's own controls on a real PostgreSQL, through the memory front door: opting out
deletes what is held and keeps them out of every write and every context, even for messages
already queued; opting in stores them again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports import describe_mine
from memory.wiring import Memory, open_memory
from tests.memory.export_samples import export, sample_messages, write
from tests.support import chat_message

G = 700
ALICE, BOB = 71, 72
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)
ALICE_M, BOB_M = Member(G, ALICE, username="alice"), Member(G, BOB, username="bob")


@pytest.fixture
async def memory(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> AsyncIterator[Memory]:
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=telemetry
    ) as opened:
        opened.writer.submit_member(Member(G, ALICE, username="alice"))
        opened.writer.submit_member(Member(G, BOB, username="bob"))
        await opened.writer.flush()
        yield opened


def _said(author: int, text: str, minutes: int, **extra: object) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=7,
        author_id=author,
        created_at=NOW - timedelta(minutes=minutes),
        **extra,
    )


async def _authors(db_pool: asyncpg.Pool) -> list[int]:
    rows = await db_pool.fetch("SELECT author_id FROM messages WHERE guild_id = $1", G)
    return sorted(row["author_id"] for row in rows)


async def test_opting_out_deletes_and_keeps_out_even_queued_messages(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    memory.writer.submit(_said(ALICE, "I am allergic to peanuts", 30))
    memory.writer.submit(_said(BOB, "hi @alice, no peanuts then", 29, mention_ids=(ALICE,)))
    await memory.writer.flush()
    await memory.commands.remember(
        G,
        Member(G, BOB, username="bob"),
        Member(G, ALICE, username="alice"),
        "alice lives in Porto",
    )

    memory.writer.submit(_said(ALICE, "queued before the opt-out", 1))  # still in the queue
    subject = await memory.privacy.subject_or_id(G, str(ALICE))
    await memory.privacy.opt_out(subject, actor_id=ALICE, by_admin=False)
    memory.writer.submit(_said(ALICE, "said after the opt-out", 0))
    await insert_messages(db_pool, [_said(ALICE, "backfilled later", 5)])  # backfill path
    await memory.writer.flush()

    assert await _authors(db_pool) == [BOB]  # others' messages that mention her stay theirs
    assert await db_pool.fetchval("SELECT count(*) FROM user_facts WHERE user_id = $1", ALICE) == 0
    assert await db_pool.fetchval("SELECT count(*) FROM members WHERE user_id = $1", ALICE) == 0
    state = await memory.privacy.consent(G, ALICE)
    assert state is not None and state.state == "out" and state.changed_by == ALICE

    refused = await memory.commands.remember(G, BOB_M, ALICE_M, "alice likes tea")  # a mention
    assert refused.outcome == "opted_out"
    assert "asked not to be remembered" in (refused.reply or "")
    assert await memory.manager.get_memories(G, ALICE, budget=5) is None
    bob = await memory.manager.wait_for_context(G, BOB)
    assert "allergic" not in (bob.text or "").lower()  # nothing she said reaches his context

    document = await memory.privacy.export(subject)
    assert document["opted_out"] is True and document["messages"] == []
    assert "You are not remembered here" in describe_mine(document)

    await memory.privacy.opt_out(subject, actor_id=ALICE, by_admin=False)  # twice: harmless
    await memory.privacy.opt_in(G, ALICE, actor_id=ALICE, by_admin=False)
    memory.writer.submit(_said(ALICE, "back again", 0))
    await memory.writer.flush()
    assert await _authors(db_pool) == [ALICE, BOB]
    assert (await memory.privacy.export(subject))["opted_out"] is False


async def test_imports_skip_an_opted_out_member(
    memory: Memory, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    messages = sample_messages()
    author = int(messages[0]["author"]["id"])
    guild = int(export(messages)["guild"]["id"])
    subject = await memory.privacy.subject_or_id(guild, str(author))  # never seen: an id works
    await memory.privacy.opt_out(subject, actor_id=None, by_admin=True)
    path = write(tmp_path / "general.json", export(messages))
    result = await memory.imports.importer(include_bots=True).import_file(path)
    stored = await db_pool.fetch("SELECT author_id FROM messages WHERE guild_id = $1", guild)
    assert stored and author not in {row["author_id"] for row in stored}
    theirs = sum(1 for m in messages if int(m["author"]["id"]) == author)
    assert result.skipped_consent == theirs
    assert f"{theirs} from members who opted out skipped" in result.summary()
    assert result.new == len(stored) and result.existing == 0


async def test_an_opted_in_guild_stores_only_members_who_opted_in(
    memory: Memory, db_pool: asyncpg.Pool
) -> None:
    memory.writer.submit(_said(BOB, "said before the switch", 10))
    await memory.writer.flush()
    settings = await memory.guild_settings.update(G, storage="opted-in")
    assert settings.storage == "opted-in"
    await memory.privacy.opt_in(G, ALICE, actor_id=ALICE, by_admin=False)
    memory.writer.submit(_said(ALICE, "count me in", 3))
    memory.writer.submit(_said(BOB, "I never agreed", 2))
    await memory.writer.flush()
    assert await _authors(db_pool) == [ALICE, BOB]  # switching purges nothing by itself
    assert await memory.privacy.unconsented(G) == [BOB]
    assert await memory.privacy.purge_unconsented(G, actor_id=None) == 1
    assert await _authors(db_pool) == [ALICE]
    refused = await memory.commands.remember(G, ALICE_M, BOB_M, "bob likes chess")
    assert refused.outcome == "opted_out"  # not opted in here: not remembered either
    await memory.guild_settings.update(G, storage="everyone")  # switching back purges nothing
    memory.writer.submit(_said(BOB, "now I am stored", 1))
    await memory.writer.flush()
    assert await _authors(db_pool) == [ALICE, BOB]
