"""Privacy export and purge: everything about a member comes out, then nothing is left."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import SystemClock
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry
from memory.privacy import (
    AmbiguousMember,
    Subject,
    UnknownGuild,
    UnknownMember,
    export_member,
    purge_member,
    resolve_guild,
    resolve_subject,
    to_json,
)

G, G2 = 900000000000000001, 900000000000000002
ALICE, BOB, CAROL = 111111111111111111, 222222222222222222, 333333333333333333
TZ = "Europe/Berlin"
DAY1, DAY2, DAY3, DAY4 = (date(2025, 5, d) for d in (1, 2, 3, 4))


def _at(day: date, hour: int) -> datetime:
    """`hour`:30 local time in Berlin (UTC+2 in May) on `day`, as UTC."""
    return datetime(day.year, day.month, day.day, hour, 30, tzinfo=UTC) - timedelta(hours=2)


def _msg(
    mid: int, author: int, day: date, content: str, *, hour: int = 12, **kw: Any
) -> ChatMessage:
    return ChatMessage(mid, G, 5, author, content, _at(day, hour), **kw)


async def _seed(db: asyncpg.Pool) -> None:
    """Two guilds with alice, bob and carol: what they said, their facts, and their summaries."""
    await _seed_chat(db)
    await _seed_facts(db)
    await _seed_summaries(db)


async def _seed_chat(db: asyncpg.Pool) -> None:
    await db.execute(
        "INSERT INTO guilds (guild_id, name, timezone) VALUES ($1, 'Tea Club', $3),"
        " ($2, 'Other Place', 'UTC')",
        G,
        G2,
        TZ,
    )
    await upsert_members(
        db,
        [
            Member(G, ALICE, username="alice_w", nickname="Alice", aliases=("Ally",)),
            Member(G, BOB, username="bob", global_name="Bobby"),
            Member(G, CAROL, username="carol"),
            Member(G2, ALICE, username="alice_w"),
        ],
    )
    await insert_messages(
        db,
        [
            _msg(1, ALICE, DAY1, "I adopted a cat", hour=23),  # 23:30 Berlin = DAY1 locally
            _msg(2, BOB, DAY1, "congrats!", reply_to_id=1),
            _msg(3, ALICE, DAY2, "nobody here today?"),
            # 00:30 in Berlin on DAY3 is still DAY2 in UTC: days follow the guild's time zone
            _msg(
                4, BOB, DAY3, "<@111111111111111111> how's the cat?", hour=0, mention_ids=(ALICE,)
            ),
            _msg(5, BOB, DAY4, "cooked pasta"),
            _msg(6, CAROL, DAY4, "nice"),
            ChatMessage(7, G2, 6, ALICE, "other guild", _at(DAY1, 10)),
        ],
    )


async def _seed_facts(db: asyncpg.Pool) -> None:
    facts = [(G, ALICE, "Alice has a cat named Tom."), (G, BOB, "Bob cooks."), (G2, ALICE, "x")]
    await db.executemany(
        "INSERT INTO user_facts (guild_id, user_id, blob, version) VALUES ($1, $2, $3, 1)", facts
    )
    await db.executemany(
        "INSERT INTO fact_history (guild_id, user_id, version, old_blob, new_blob, actor_id,"
        " command, statement, source_message_id) VALUES ($1, $2, 1, '', $3, $4, $5, $6, $7)",
        [
            (G, ALICE, "Alice has a cat.", ALICE, "remember", "I have a cat", 1),
            (G, ALICE, "Alice has a cat named Tom.", BOB, "remember", "her cat is Tom", 2),
            (G, BOB, "Bob cooks.", ALICE, "remember", "Bob cooks", 3),
        ],
    )
    await db.executemany(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement, actor_id)"
        " VALUES ($1, $2, $3, $4)",
        [(G, ALICE, "Alice hates dogs", ALICE), (G, BOB, "Bob is rude", ALICE)],
    )


async def _seed_summaries(db: asyncpg.Pool) -> None:
    await db.executemany(
        "INSERT INTO summary_days (guild_id, day, message_count, max_message_id)"
        " VALUES ($1, $2, 2, 2)",
        [(G, day) for day in (DAY1, DAY2, DAY3, DAY4)],
    )
    await db.executemany(
        "INSERT INTO daily_summaries (guild_id, day, user_id, summary) VALUES ($1, $2, $3, $4)",
        [
            (G, DAY1, ALICE, "Alice adopted a cat."),
            (G, DAY1, BOB, "Bob congratulated someone."),
            (G, DAY2, ALICE, "Alice found the server quiet."),
            (G, DAY3, BOB, "Bob asked Alice about her cat."),
            (G, DAY4, BOB, "Bob cooked pasta."),
            (G, DAY4, CAROL, "Carol liked it."),
        ],
    )
    await db.executemany(
        "INSERT INTO historical_summaries (guild_id, user_id, end_day, summary, source_hash)"
        " VALUES ($1, $2, $3, $4, 'h')",
        [(G, ALICE, DAY4, "Alice got a cat."), (G, BOB, DAY4, "Bob chatted with Alice.")],
    )
    await db.executemany(
        "INSERT INTO merged_contexts (guild_id, user_id, context, content_hash, sources)"
        " VALUES ($1, $2, $3, 'h', $4)",
        [
            (G, ALICE, "<memory>Alice has a cat.</memory>", {"facts": 1}),
            (G, BOB, "<memory>Bob is friends with Ally.</memory>", {"facts": 1}),
            (G, CAROL, "<memory>Carol likes things.</memory>", {"facts": 0}),
        ],
    )


async def _rows_mentioning(db: asyncpg.Pool, guild_id: int, needle: str) -> dict[str, int]:
    """Every table with a guild_id column, searched as text for `needle` (ids, arrays, jsonb)."""
    tables = await db.fetch(
        "SELECT table_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND column_name = 'guild_id'"
    )
    found = {}
    for row in tables:
        table = row["table_name"]
        n = await db.fetchval(
            f'SELECT count(*) FROM "{table}" t WHERE guild_id = $1 AND t::text LIKE $2',
            guild_id,
            f"%{needle}%",
        )
        if n:
            found[table] = n
    return found


@pytest.fixture
async def seeded(db_pool: asyncpg.Pool) -> asyncpg.Pool:
    await _seed(db_pool)
    return db_pool


async def test_export_holds_everything_about_the_member(
    seeded: asyncpg.Pool, telemetry: Telemetry
) -> None:
    subject = await resolve_subject(seeded, G, "alice")
    export = await export_member(seeded, subject, clock=SystemClock(), telemetry=telemetry)

    assert json.loads(to_json(export)) == export  # plain JSON, no lossy types
    assert export["guild_id"] == G and export["user_id"] == ALICE
    assert export["member"]["nickname"] == "Alice" and export["member"]["aliases"] == ["Ally"]
    assert [m["message_id"] for m in export["messages"]] == [1, 3]
    assert export["facts"]["blob"] == "Alice has a cat named Tom."
    assert [h["statement"] for h in export["fact_history"]] == ["I have a cat", "her cat is Tom"]
    assert [f["statement"] for f in export["forgotten_statements"]] == ["Alice hates dogs"]
    assert [c["statement"] for c in export["fact_changes_by_member"]] == ["Bob cooks"]
    assert "new_blob" not in export["fact_changes_by_member"][0]  # not Bob's whole blob
    assert [f["statement"] for f in export["forget_requests_by_member"]] == ["Bob is rude"]
    assert [s["day"] for s in export["daily_summaries"]] == ["2025-05-01", "2025-05-02"]
    assert [s["summary"] for s in export["historical_summaries"]] == ["Alice got a cat."]
    assert export["merged_context"]["context"] == "<memory>Alice has a cat.</memory>"
    assert "other guild" not in to_json(export)  # another guild's data is not part of it
    [event] = telemetry.recent("privacy_export")
    assert event["user_id"] == ALICE and event["count"] == 13


async def test_purge_leaves_no_row_about_the_member(
    seeded: asyncpg.Pool, telemetry: Telemetry
) -> None:
    assert await _rows_mentioning(seeded, G, str(ALICE))  # the check does see the seed
    subject = await resolve_subject(seeded, G, "<@111111111111111111>")
    resummarized: list[tuple[int, date]] = []

    async def resummarize(guild_id: int, day: date) -> None:
        resummarized.append((guild_id, day))

    report = await purge_member(
        seeded, subject, telemetry=telemetry, resummarize=resummarize, actor_id=BOB
    )

    assert await _rows_mentioning(seeded, G, str(ALICE)) == {}
    for name in ("alice_w", "Ally"):
        assert await _rows_mentioning(seeded, G, name) == {}
    # the other guild is a different community: its rows stay
    assert set(await _rows_mentioning(seeded, G2, str(ALICE))) == {
        "members",
        "messages",
        "user_facts",
    }
    assert report.counts.rows["messages"] == 2 and report.counts.rows["mentions_scrubbed"] == 1
    assert report.counts.stale_days == [DAY1, DAY3]
    assert report.counts.dropped_days == [DAY2]
    assert report.counts.others_invalidated == [BOB]  # Carol's memory never held her
    assert resummarized == [(G, DAY1), (G, DAY3)]
    [event] = telemetry.recent("privacy_purge")
    assert event["count"] == report.counts.total and event["actor_id"] == BOB
    assert "purged Alice (@alice_w, id 111111111111111111)" in report.describe()


async def test_purge_keeps_other_members_and_marks_shared_days_stale(
    seeded: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await purge_member(seeded, await resolve_subject(seeded, G, "Ally"), telemetry=telemetry)

    messages = {
        r["message_id"]: r
        for r in await seeded.fetch("SELECT * FROM messages WHERE guild_id=$1", G)
    }
    assert set(messages) == {2, 4, 5, 6}
    assert messages[4]["content"] == "@someone how's the cat?"
    assert messages[4]["mention_ids"] == []
    assert (
        await seeded.fetchval(
            "SELECT blob FROM user_facts WHERE guild_id = $1 AND user_id = $2", G, BOB
        )
        == "Bob cooks."
    )
    # Alice's remember about Bob stays (it is Bob's memory) but no longer names her
    row = await seeded.fetchrow("SELECT * FROM fact_history WHERE guild_id = $1", G)
    assert row is not None
    assert (row["user_id"], row["actor_id"], row["source_message_id"]) == (BOB, None, None)
    assert (
        await seeded.fetchval("SELECT actor_id FROM forgotten_statements WHERE guild_id = $1", G)
        is None
    )
    days = {
        r["day"]: r["stale"]
        for r in await seeded.fetch("SELECT day, stale FROM summary_days WHERE guild_id=$1", G)
    }
    assert days == {DAY1: True, DAY3: True, DAY4: False}  # DAY2 was hers alone: gone
    summaries = await seeded.fetch(
        "SELECT day, user_id FROM daily_summaries WHERE guild_id = $1 ORDER BY day, user_id", G
    )
    # Others' summaries of her days may quote or paraphrase her: they go at once (the stale
    # days are closed again without her); a day she had no part in keeps its summaries.
    assert [(r["day"], r["user_id"]) for r in summaries] == [(DAY4, BOB), (DAY4, CAROL)]
    # derived texts that could carry her are dropped (recomputed on demand); Carol's stays
    assert (
        await seeded.fetchval("SELECT count(*) FROM historical_summaries WHERE guild_id=$1", G) == 0
    )
    contexts = await seeded.fetch("SELECT user_id FROM merged_contexts WHERE guild_id = $1", G)
    assert [r["user_id"] for r in contexts] == [CAROL]


async def test_purge_drops_a_later_narrative_that_still_names_her(
    seeded: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """A narrative rolled forward can carry a sentence past its window: one ending long after
    her last day is dropped when it names her, and another member's that does not stays."""
    later = DAY4 + timedelta(days=20)
    await seeded.executemany(
        "INSERT INTO historical_summaries (guild_id, user_id, end_day, summary, source_hash)"
        " VALUES ($1, $2, $3, $4, 'h')",
        [(G, BOB, later, "Bob still talks about Ally's cat."), (G, CAROL, later, "Carol sings.")],
    )
    await purge_member(seeded, await resolve_subject(seeded, G, "Ally"), telemetry=telemetry)
    rows = await seeded.fetch(
        "SELECT user_id FROM historical_summaries WHERE guild_id = $1 AND end_day = $2", G, later
    )
    assert [r["user_id"] for r in rows] == [CAROL]


async def test_purge_then_export_round_trip(seeded: asyncpg.Pool, telemetry: Telemetry) -> None:
    subject = await resolve_subject(seeded, G, str(ALICE))
    before = await export_member(seeded, subject, clock=SystemClock(), telemetry=telemetry)
    await purge_member(seeded, subject, telemetry=telemetry)
    after = await export_member(seeded, subject, clock=SystemClock(), telemetry=telemetry)
    assert before["messages"] and after["messages"] == []
    assert after["member"] is None and after["facts"] is None and after["merged_context"] is None
    for key in ("fact_history", "forgotten_statements", "daily_summaries", "historical_summaries"):
        assert after[key] == []
    with pytest.raises(UnknownMember, match="nothing is held about user"):
        await resolve_subject(seeded, G, str(ALICE))


async def test_tables_added_later_are_swept_too(seeded: asyncpg.Pool, telemetry: Telemetry) -> None:
    await seeded.execute(
        "CREATE TABLE member_notes (guild_id bigint, user_id bigint, note text);"
        f"INSERT INTO member_notes VALUES ({G}, {ALICE}, 'n1'), ({G}, {BOB}, 'n2'),"
        f" ({G2}, {ALICE}, 'n3')"
    )
    subject = await resolve_subject(seeded, G, "alice_w")
    export = await export_member(seeded, subject, clock=SystemClock(), telemetry=telemetry)
    assert [r["note"] for r in export["other_tables"]["member_notes"]] == ["n1"]
    report = await purge_member(seeded, subject, telemetry=telemetry)
    assert report.counts.rows["member_notes"] == 1
    notes = await seeded.fetch("SELECT note FROM member_notes ORDER BY note")
    assert [r["note"] for r in notes] == ["n2", "n3"]


async def test_resolution_by_id_mention_name_and_errors(seeded: asyncpg.Pool) -> None:
    assert (await resolve_subject(seeded, G, "Bobby")).user_id == BOB
    assert (await resolve_subject(seeded, G, f"<@!{BOB}>")).user_id == BOB
    # someone never seen in the directory but remembered about: found by id
    await seeded.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob) VALUES ($1, 444, 'Dan is new.')", G
    )
    dan = await resolve_subject(seeded, G, "444")
    assert dan == Subject(G, 444, None) and dan.label == "user 444"

    await upsert_members(
        seeded, [Member(G, 501, username="alex_a"), Member(G, 502, username="alex_b")]
    )
    await seeded.execute(
        "UPDATE members SET nickname = 'Alex' WHERE guild_id = $1 AND user_id IN (501, 502)", G
    )
    with pytest.raises(AmbiguousMember, match="'alex' matches 2 members") as ambiguous:
        await resolve_subject(seeded, G, "alex")
    assert "id 501" in str(ambiguous.value) and "id 502" in str(ambiguous.value)
    with pytest.raises(UnknownMember, match="no member named 'zed'"):
        await resolve_subject(seeded, G, "zed")
    with pytest.raises(UnknownMember, match="nothing is held about user 999"):
        await resolve_subject(seeded, G, "999")


async def test_guild_resolution(seeded: asyncpg.Pool) -> None:
    assert await resolve_guild(seeded, str(G)) == G
    assert await resolve_guild(seeded, "tea club") == G
    with pytest.raises(UnknownGuild, match="no guild 77"):
        await resolve_guild(seeded, "77")
    with pytest.raises(UnknownGuild, match="no guild named 'Nowhere'"):
        await resolve_guild(seeded, "Nowhere")
