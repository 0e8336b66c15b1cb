"""Text search configuration per guild: 'simple' by default (any language, words as written,
a question's regularly inflected English word read as its stem); an admin who picks 'english'
gets PostgreSQL's stemming of messages and summaries, already stored and new, and another guild
keeps its own configuration."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

import asyncpg
import pytest

from db.guilds import ensure_guild, lock_settings
from db.messages import apply_edits, insert_messages
from db.search_config import reindex_guild, set_search_config
from db.summaries import save_day
from memory.core.models import ChatMessage
from memory.core.settings import load_settings
from memory.guilds import (
    GuildDefaults,
    InvalidSetting,
    load_guild_settings,
    update_guild_settings,
)
from memory.recall import RecallService
from tests.support import chat_message, eventually

G, OTHER = 910, 911
SAM = 93
AT = datetime(2026, 9, 1, 18, tzinfo=UTC)


def _defaults() -> GuildDefaults:
    return GuildDefaults.from_settings(load_settings())


def _said(text: str, guild: int = G, message_id: int | None = None) -> ChatMessage:
    return chat_message(
        message_id, text, guild_id=guild, channel_id=5, author_id=SAM, created_at=AT
    )


async def _texts(db_pool: asyncpg.Pool, guild: int, question: str) -> set[str]:
    """What a search matched: its hits and the matches merged into their exchanges."""
    hits = await RecallService(db_pool).search(guild, question, limit=10)
    return {line.text for hit in hits for line in (hit, *hit.context) if line.tier == 0}


async def _seed(db_pool: asyncpg.Pool) -> None:
    await insert_messages(
        db_pool,
        [
            _said("we climbed the north face on saturday"),
            _said("she climbs every tuesday", guild=OTHER),
            _said("he climbs twice a week"),
        ],
    )


async def test_simple_by_default_matches_words_as_written(db_pool: asyncpg.Pool) -> None:
    await _seed(db_pool)
    assert (await load_guild_settings(db_pool, G, _defaults())).search_config == "simple"
    # "climbing" is searched as "climb", a prefix: both forms, and nothing in another guild.
    assert await _texts(db_pool, G, "who went climbing?") == {
        "we climbed the north face on saturday",
        "he climbs twice a week",
    }
    # A word with no regular inflection is matched as written: "north" is not "northern".
    assert await _texts(db_pool, G, "who went up a northern route?") == set()


async def test_english_stems_old_and_new_rows_and_leaves_other_guilds_alone(
    db_pool: asyncpg.Pool,
) -> None:
    await _seed(db_pool)
    # "dog" is too short to be searched as a prefix: only a stemmed row finds "dogs" by it.
    dogs = [_said("our dogs came along", message_id=9_100_002)]
    await insert_messages(db_pool, [*dogs, _said("her dogs came too", OTHER, 9_100_003)])
    async with db_pool.acquire() as connection:
        await save_day(
            connection,
            G,
            date(2026, 9, 1),
            message_count=2,
            max_message_id=None,
            provider="offline",
            summaries={SAM: "Sam talked about climbing routes."},
        )
    settings = await update_guild_settings(db_pool, G, _defaults(), search_config="English")
    assert settings.search_config == "english"
    assert (await load_guild_settings(db_pool, G, _defaults())).search_config == "english"

    # Stored rows were re-indexed: "climbing" finds "climbed" and "climbs", and the summary.
    assert await _texts(db_pool, G, "who went climbing?") == {
        "we climbed the north face on saturday",
        "he climbs twice a week",
        "Sam talked about climbing routes.",
    }
    # New and edited messages are indexed with the guild's configuration too.
    await insert_messages(db_pool, [_said("they will climb again in May", message_id=9_100_001)])
    await apply_edits(db_pool, [_said("everyone climbed, even the dog", message_id=9_100_001)])
    found = await _texts(db_pool, G, "climbing")
    assert "everyone climbed, even the dog" in found
    assert "they will climb again in May" not in found

    assert "our dogs came along" in await _texts(db_pool, G, "dog")

    # The other guild still searches with 'simple'.
    assert await _texts(db_pool, OTHER, "dog") == set()
    assert await _texts(db_pool, OTHER, "dogs") == {"her dogs came too"}

    # Back to 'simple': words as written again.
    await update_guild_settings(db_pool, G, _defaults(), search_config="simple")
    assert "our dogs came along" not in await _texts(db_pool, G, "dog")
    assert await _texts(db_pool, G, "dogs") == {"our dogs came along"}


async def test_an_unknown_configuration_is_refused_with_the_valid_ones(
    db_pool: asyncpg.Pool,
) -> None:
    await _seed(db_pool)
    with pytest.raises(InvalidSetting) as refused:
        await update_guild_settings(db_pool, G, _defaults(), search_config="klingon")
    message = str(refused.value)
    assert "'klingon' is not a text search configuration" in message
    assert "english" in message and "simple" in message and "german" in message
    assert await db_pool.fetchval("SELECT count(*) FROM guilds") == 0  # nothing changed
    assert (await load_guild_settings(db_pool, G, _defaults())).search_config == "simple"


async def test_reindex_in_small_batches_reaches_every_row_once(db_pool: asyncpg.Pool) -> None:
    """Rows sent in the same second straddle batch boundaries; a second run rewrites nothing
    (so re-running the setting finishes an interrupted re-index cheaply)."""
    await insert_messages(db_pool, [_said(f"climbed wall number {n}") for n in range(7)])
    await update_guild_settings(db_pool, G, _defaults(), forget_others="anyone")
    async with db_pool.acquire() as connection:
        await set_search_config(connection, G, "english")
    assert await reindex_guild(db_pool, G, batch=2) == 7
    assert len(await _texts(db_pool, G, "climbing")) == 7
    assert await reindex_guild(db_pool, G, batch=2) == 0


async def test_a_message_written_during_the_change_is_indexed_the_new_way(
    db_pool: asyncpg.Pool,
) -> None:
    """The writer waits for the admin's change to commit, then uses the new configuration, so
    the re-index (which only sees committed rows) cannot miss it."""
    await ensure_guild(db_pool, G)  # as the batched writer does before storing a batch
    await insert_messages(db_pool, [_said("first climbs of the season")])
    async with db_pool.acquire() as admin:
        transaction = admin.transaction()
        await transaction.start()
        await lock_settings(admin, G)
        await set_search_config(admin, G, "english")
        writing = asyncio.create_task(insert_messages(db_pool, [_said("we climbed all day")]))

        async def waiting_for_the_change() -> bool:
            return bool(
                await db_pool.fetchval(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO messages%'"
                )
            )

        await eventually(waiting_for_the_change)
        assert not writing.done()
        await transaction.commit()
    await writing
    assert await reindex_guild(db_pool, G) == 1  # only the row stored before the change
    assert await _texts(db_pool, G, "climbing") == {
        "first climbs of the season",
        "we climbed all day",
    }
