"""Memory commands are not chat: daily summaries leave them out (a quoted forget command would
repeat the very thing that was forgotten), and so are questions to the bot that say nothing of
who asks, whether it is addressed by its name or by a mention."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    NOW,
    TODAY,
    add_members,
    manager,
    message,
    model,
)
from tests.support import member

BOT_ID = 4242  # the bot as the member directory knows it (a guild's members include it)
YESTERDAY = TODAY - timedelta(days=1)
AT = NOW - timedelta(days=1)  # a moment of yesterday


async def _members_and_the_bot(db_pool: asyncpg.Pool) -> None:
    await add_members(db_pool)
    await upsert_members(db_pool, [member(GUILD, BOT_ID, "memorybot", is_bot=True)])


async def test_commands_to_the_bot_are_left_out_of_daily_summaries(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _members_and_the_bot(db_pool)
    await insert_messages(
        db_pool,
        [
            message(ALICE, "I adopted a kitten called Miso", AT),
            message(BOB, "Bot, forget that alice is allergic to cats", AT + timedelta(minutes=1)),
            message(BOB, "Bot what do you know about alice?", AT + timedelta(minutes=2)),
            message(BOB, "Bot, where did alice get her kitten?", AT + timedelta(minutes=3)),
            message(BOB, "Bot, I got a kitten too, any names?", AT + timedelta(minutes=4)),
            message(
                BOB,
                f"<@{BOT_ID}> is alice's kitten black?",
                AT + timedelta(minutes=5),
                mentions=(BOT_ID,),
            ),
            message(BOB, f"<@{ALICE}> is your kitten black?", AT + timedelta(minutes=6)),
        ],
    )
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    await memory.summarize_day(GUILD, YESTERDAY)
    [request] = [r for r in provider.requests if r.purpose == "daily_summary"]
    sent = [m["content"] for m in request.inputs["messages"]]
    assert sent == [
        "I adopted a kitten called Miso",
        "Bot, I got a kitten too, any names?",
        "@Alice is your kitten black?",  # asks alice herself: chat (her mention rendered)
    ]
    stored = await db_pool.fetchval(
        "SELECT message_count FROM summary_days WHERE guild_id = $1 AND day = $2", GUILD, YESTERDAY
    )
    assert stored == 7, "the staleness fingerprint still counts every message"
    await memory.aclose()


async def test_a_day_of_questions_to_the_bot_asks_no_model_and_counts_no_call(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _members_and_the_bot(db_pool)
    # Only a mention tells these from chat: they drop out once the members are loaded.
    asked = [
        message(BOB, f"<@{BOT_ID}> is alice's kitten black?", AT, mentions=(BOT_ID,)),
        message(
            BOB,
            f"<@{BOT_ID}> where does alice live?",
            AT + timedelta(minutes=1),
            mentions=(BOT_ID,),
        ),
    ]
    await insert_messages(db_pool, asked)
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry)
    result = await memory.summarize_day(GUILD, YESTERDAY)
    assert [r for r in provider.requests if r.purpose == "daily_summary"] == []
    assert result.llm_calls == 0
    [passed] = telemetry.recent("daily_summary")[-1:]
    assert passed["llm_calls"] == 0 and passed["members"] == 0
    await memory.aclose()
