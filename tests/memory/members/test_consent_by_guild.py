"""Members' choices are held by guild: one read answers for every member of a guild (the fleet
bench found a read per member per minute on every message of a busy fleet), and the answers
are the ones the database's own rule gives, for every storage mode and choice."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from db.consent import is_remembered, record_consent
from memory.core.telemetry import Telemetry
from memory.members import MemberConsent

GUILD, OTHER = 1, 2


async def _guild(pool: asyncpg.Pool, guild_id: int, storage: str | None) -> None:
    settings = {"storage": storage} if storage else {}
    await pool.execute(
        "INSERT INTO guilds (guild_id, name, settings) VALUES ($1, 'g', $2::jsonb)",
        guild_id,
        json.dumps(settings),
    )


def _reads(events: list[dict[str, Any]]) -> int:
    """Lookups that went to the database (cache misses of the consent caches)."""
    return sum(1 for e in events if e["op"] == "cache" and not e["hit"])


async def test_every_storage_mode_and_choice_answers_as_the_database_does(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    for guild_id, storage in ((GUILD, None), (OTHER, "opted-in")):
        await _guild(db_pool, guild_id, storage)
        await record_consent(db_pool, guild_id, 10, "in", changed_by=10, by_admin=False)
        await record_consent(db_pool, guild_id, 11, "out", changed_by=11, by_admin=False)
    held = MemberConsent(db_pool, telemetry=telemetry)
    whole = MemberConsent(db_pool, telemetry=telemetry, guild_choices=1)  # member by member
    for guild_id in (GUILD, OTHER):
        for user_id in (10, 11, 12):  # opted in, opted out, never chose
            truth = await is_remembered(db_pool, guild_id, user_id)
            assert await held.remembered(guild_id, user_id) is truth, (guild_id, user_id)
            assert await whole.remembered(guild_id, user_id) is truth, (guild_id, user_id)
    opted_out = await held.consent(GUILD, 11)
    assert opted_out is not None and opted_out.state == "out"
    assert await held.consent(GUILD, 12) is None


async def test_a_guilds_members_cost_one_read_and_a_change_shows_at_once(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _guild(db_pool, GUILD, None)
    events: list[dict[str, Any]] = []
    telemetry.add_sink(events.append)
    consent = MemberConsent(db_pool, telemetry=telemetry)
    for user_id in range(100, 150):
        assert await consent.remembered(GUILD, user_id)
    assert _reads(events) == 1
    # An opt-out recorded and announced (as CrossProcessCaches does) is seen at once.
    await record_consent(db_pool, GUILD, 120, "out", changed_by=120, by_admin=False)
    consent.forget(GUILD, 120)
    assert not await consent.remembered(GUILD, 120)
    assert await consent.remembered(GUILD, 121)
    assert _reads(events) == 2
