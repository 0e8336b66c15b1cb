"""A guild whose GUILD_CREATE discord.py dropped on READY (its wait for guilds timed out as the
payload landed) is still announced: the directory fills and its channels' visibility is known."""

from __future__ import annotations

import asyncpg
import discord
import pytest
from discord.state import AutoShardedConnectionState

from db.members import get_member
from tests.e2e.conftest import StartBot, until_stored
from tests.e2e.fake_discord import ALICE_ID, GENERAL_ID, GUILD_ID, FakeDiscord


async def test_a_guild_discord_py_never_announced_is_announced_when_its_shard_is_ready(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held: list[discord.Guild] = []

    def dropped(state: AutoShardedConnectionState, guild: discord.Guild) -> bool:
        # What the race leaves: the guild cached and available, its arrival in a queue nobody
        # reads. Alice is left out of it, as a big guild's GUILD_CREATE leaves members out.
        held.append(guild)
        alice = guild.get_member(ALICE_ID)
        assert alice is not None
        guild._remove_member(alice)
        return True

    monkeypatch.setattr(AutoShardedConnectionState, "_add_ready_state", dropped)
    bot = await start_bot(extensions=["bot.cogs.ingest", "bot.cogs.visibility"])
    assert [guild.id for guild in held] == [GUILD_ID]

    alice = await until_stored(bot, lambda: get_member(db_pool, GUILD_ID, ALICE_ID))
    assert alice.username == "alice"  # chunked back in before the guild was announced
    public = await until_stored(
        bot,
        lambda: db_pool.fetchval(
            "SELECT public FROM channel_visibility WHERE guild_id = $1 AND channel_id = $2",
            GUILD_ID,
            GENERAL_ID,
        ),
    )
    assert public is True
