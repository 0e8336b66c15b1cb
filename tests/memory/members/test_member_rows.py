"""The reply path keeps members' rows a minute, and a change shows at once: a rename the
writer stores, an alias remembered or forgotten, another process's change."""

from __future__ import annotations

from pathlib import Path

import asyncpg

from bot.console import ConsoleSession
from memory.core.clock import SystemClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.members import MemberDirectory
from memory.wiring import open_memory
from tests.bot.console_support import console_settings

GUILD = 1


async def test_a_cached_row_serves_until_the_member_changes(db_pool: asyncpg.Pool) -> None:
    await db_pool.execute(
        "INSERT INTO members (guild_id, user_id, username) VALUES ($1, 7, 'dana')", GUILD
    )
    directory = MemberDirectory(db_pool, cache_seconds=60)
    assert (await directory.get(GUILD, [7]))[7].display_name == "dana"
    # Changed behind its back (no invalidation): the cached row is still served...
    await db_pool.execute("UPDATE members SET username = 'dee' WHERE user_id = 7")
    assert (await directory.get(GUILD, [7]))[7].display_name == "dana"
    # ... until a change of that member is announced; other guilds' rows are untouched.
    directory.forget(GUILD, 7)
    assert (await directory.get(GUILD, [7]))[7].display_name == "dee"
    assert await directory.get(GUILD, [8]) == {}, "unknown ids are left out, not cached"


async def test_a_rename_and_a_forgotten_alias_show_at_once(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    async with open_memory(
        console_settings(tmp_path), pool=db_pool, telemetry=telemetry, clock=SystemClock()
    ) as memory:
        session = ConsoleSession(memory, speaker="bob")
        await session.handle_line("alice: morning all")
        await session.handle_line("Bot, remember that alice is Sergey")
        [alice] = await memory.members.find(session.guild_id, "alice")
        names = (await memory.members.get(session.guild_id, [alice.user_id]))[alice.user_id]
        assert "Sergey" in names.names

        await session.handle_line("Bot, forget that alice is Sergey")
        names = (await memory.members.get(session.guild_id, [alice.user_id]))[alice.user_id]
        assert "Sergey" not in names.names, "a forgotten alias leaves the cached row at once"

        memory.writer.submit_member(
            Member(session.guild_id, alice.user_id, username="alice", nickname="Ally"),
            nickname_known=True,
        )
        await memory.writer.flush()
        renamed = (await memory.members.get(session.guild_id, [alice.user_id]))[alice.user_id]
        assert renamed.display_name == "Ally", "a rename the writer stored shows at once"
