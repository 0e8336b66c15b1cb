"""What the end-to-end ingest tests share (test_ingest_e2e.py, test_catch_up_e2e.py)."""

from __future__ import annotations

import asyncio
from typing import Protocol, runtime_checkable

import asyncpg
import discord
from discord.ext import commands

from bot.backfill import Backfiller
from db.members import get_member
from db.messages import get_message
from memory.core.models import ChatMessage, Member

# The bot with only the cog that stores what members say.
INGEST_ONLY = ["bot.cogs.ingest"]


@runtime_checkable
class Backfilling(Protocol):
    """What the tests read of the ingest cog. `load_extension` imports its own copy of
    bot/cogs/ingest.py, so the cog is not an instance of the `IngestCog` a test imports."""

    backfill_task: asyncio.Task[int] | None
    backfiller: Backfiller

    async def backfill_done(self) -> int: ...


def ingest_cog(bot: commands.Bot | commands.AutoShardedBot) -> Backfilling:
    """The bot's ingest cog."""
    cog: object = bot.get_cog("Ingest")
    assert isinstance(cog, Backfilling), cog
    return cog


def text_channel(bot: discord.Client, channel_id: int) -> discord.TextChannel:
    """A text channel of the fake guild as the bot's cache holds it."""
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel), channel
    return channel


async def stored_message(pool: asyncpg.Pool, message_id: int) -> ChatMessage:
    """The stored row of a message the test knows was stored."""
    message = await get_message(pool, message_id)
    assert message is not None, f"message {message_id} was not stored"
    return message


async def stored_member(pool: asyncpg.Pool, guild_id: int, user_id: int) -> Member:
    """The directory row of a member the test knows was stored."""
    member = await get_member(pool, guild_id, user_id)
    assert member is not None, f"member {user_id} is not in the directory"
    return member


async def stored_ids(pool: asyncpg.Pool) -> list[int]:
    """Ids of every stored message, oldest first."""
    rows = await pool.fetch("SELECT message_id FROM messages ORDER BY message_id")
    return [row["message_id"] for row in rows]
