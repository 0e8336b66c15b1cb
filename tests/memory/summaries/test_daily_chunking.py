"""A busy day of a big guild is chunked by what each chunk's prompt really holds: its messages
and the members they involve, not the guild's whole member list (which once left 500 characters
per chunk and cost one call per couple of messages)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from tests.memory.hierarchy_support import GUILD, NOW, TODAY, manager, message, model

MEMBERS = 400
BUDGET = 20_000


async def test_many_members_do_not_shrink_chunks_to_a_few_messages(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    ids = list(range(5_000, 5_000 + MEMBERS))
    await upsert_members(
        db_pool, [Member(guild_id=GUILD, user_id=uid, username=f"member{uid}") for uid in ids]
    )
    day = TODAY - timedelta(days=1)
    start = datetime.combine(day, datetime.min.time(), UTC)
    chatter = [
        message(uid, f"member {uid} says hello to everyone", start + timedelta(minutes=n))
        for n, uid in enumerate(ids)
    ]
    await insert_messages(db_pool, chatter)
    provider = model()
    memory = manager(db_pool, provider, FixedClock(NOW), telemetry, daily_prompt_max_chars=BUDGET)
    try:
        result = await memory.summarize_day(GUILD, day)
    finally:
        await memory.aclose()

    requests = [r for r in provider.requests if r.purpose == "daily_summary"]
    # ~400 x (message + member element) is about 90,000 characters: a handful of chunks.
    assert 2 <= len(requests) <= 8
    assert all(len(r.prompt) <= BUDGET for r in requests)
    seen = sorted(m["message_id"] for r in requests for m in r.inputs["messages"])
    assert seen == sorted(m.message_id for m in chatter)
    # Each chunk lists exactly the members who speak in it, and each member is summarised.
    for request in requests:
        authors = {m["author_id"] for m in request.inputs["messages"]}
        assert {m["user_id"] for m in request.inputs["members"]} == authors
    assert provider.calls["daily_reduce"] == 0
    assert all(result.summaries[uid].startswith(f"member{uid} said:") for uid in ids)
