"""The nearest-in-meaning queries reach messages by the guild's part of their key: since V026
keyed messages by (guild_id, message_id) (issue 46), a join on the message id alone can use no
index on its own and reads far more than the few rows it wants (a million-message guild on the
recall bench). The member lane looks each of a member's words up once, whatever the plan; and
an exchange reads its few lines, whatever the table's statistics."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from db import embeddings, recall_exchange, recall_statements, search_config
from db.embeddings import STORED_WIDTHS, hnsw_index, vector_text
from db.messages import insert_messages
from db.recall import Exclusions, search_session
from db.recall_exchange import LINES_AFTER, LINES_BEFORE, around
from db.rows import by_column
from tests.plans import prepared_plan, rows_examined, summed
from tests.support import chat_message

_NODE = re.compile(r"->|^\w")


async def _plan(db_pool: asyncpg.Pool, sql: str, *args: object, sorts: bool = True) -> list[str]:
    async with db_pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL enable_seqscan = off")
        if not sorts:  # an empty table is cheapest sorted: ask for a plan that reads in order
            await connection.execute("SET LOCAL enable_sort = off")
        rows = await connection.fetch("EXPLAIN " + sql, *args)
    return [row[0] for row in rows]


def _reads_of_messages(plan: list[str]) -> list[str]:
    """Each node of the plan that reads `messages`, with its conditions (its lines up to the
    next node)."""
    nodes: list[list[str]] = []
    for line in plan:
        if _NODE.search(line.strip()) and ("->" in line or not nodes):
            nodes.append([line])
        elif nodes:
            nodes[-1].append(line)
    readers = [node for node in nodes if re.search(r"Scan.* on messages\b", node[0])]
    bitmaps = [n for n in nodes if "Bitmap Index Scan on messages_" in n[0]]
    return [" ".join(node) for node in [*readers, *bitmaps]]


async def _assert_by_guild(db_pool: asyncpg.Pool, sql: str, *args: object) -> None:
    reads = _reads_of_messages(await _plan(db_pool, sql, *args))
    assert reads, "the plan reads messages"
    for read in reads:
        assert "Seq Scan" not in read and "guild_id = " in read, read


@pytest.mark.parametrize("width", STORED_WIDTHS)
async def test_a_guilds_nearest_messages_are_read_by_their_key(
    db_pool: asyncpg.Pool, width: int
) -> None:
    vector = vector_text([0.0] * width)
    sql = embeddings._guild_nearest(width)
    await _assert_by_guild(db_pool, sql, 1, vector, "local", 5)
    # ... and their width's HNSW index (V028) can serve it: its expression and predicate match.
    plan = " ".join(await _plan(db_pool, sql, 1, vector, "local", 5, sorts=False))
    assert f"Index Scan using {hnsw_index(width)}" in plan, plan


_JANUARY = (datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 9, tzinfo=UTC))


@pytest.mark.parametrize("width", STORED_WIDTHS)
@pytest.mark.parametrize(
    ("query", "chosen"),
    [
        (embeddings._member_nearest, (7,)),
        (embeddings._period_nearest, (*_JANUARY, 7)),
        (embeddings._guild_exactly, ()),
    ],
    ids=["a member's", "said in a time", "a guild whose walk stopped short"],
)
async def test_nearest_messages_ranked_exactly_are_read_by_their_key(
    db_pool: asyncpg.Pool, width: int, query: Callable[[int], str], chosen: tuple[object, ...]
) -> None:
    """A member's nearest, and those said in a time, are their own rows ranked exactly: an
    HNSW walk would bring the guild's nearest, most of them another member's or said another
    time."""
    vector = vector_text([0.0] * width)
    sql = query(width)
    await _assert_by_guild(db_pool, sql, 1, vector, "local", 5, *chosen)
    plan = " ".join(await _plan(db_pool, sql, 1, vector, "local", 5, *chosen, sorts=False))
    assert "hnsw" not in plan, plan


async def test_a_reindex_batch_rewrites_messages_by_their_key(db_pool: asyncpg.Pool) -> None:
    since = datetime(2026, 1, 1, tzinfo=UTC)
    await _assert_by_guild(db_pool, search_config._REINDEX_MESSAGES, 1, since, 0, 100)


async def test_the_exchange_read_is_planned_for_its_own_arguments(
    db_pool: asyncpg.Pool,
) -> None:
    """A plan blind to the arguments (PostgreSQL's generic plan, which it may keep after a
    prepared statement's fifth run) read a 200,000-message guild's exchanges in 200-280 ms
    where the plan for the arguments took 1-2 ms (an empty test database keeps custom plans
    anyway: what is checked is that the exchange read's session asks for them, and a lane's
    does not: planning the lanes anew on every search cost 3-5 ms on a 1M-message guild)."""
    hits = [(10, 20, datetime(2026, 1, 1, tzinfo=UTC), None)]
    async with search_session(db_pool, custom_plans=True) as db:
        assert await db.fetchval("SHOW plan_cache_mode") == "force_custom_plan"
        assert await around(db, 1, hits, Exclusions()) == []
    async with search_session(db_pool) as db:  # the lanes: their generic plans hold
        assert await db.fetchval("SHOW plan_cache_mode") == "auto"


def _lookup_loops(node: dict[str, Any]) -> int:
    """How many times a plan node looks a line's word up in the rarity counts."""
    guild_total = "term = ''" in node.get("Index Cond", "")  # the guild's count, once
    if node.get("Relation Name") == "recall_terms" and not guild_total:
        return int(node["Actual Loops"])
    return 0


async def _statements_plan(db_pool: asyncpg.Pool, mode: str) -> dict[str, Any]:
    """EXPLAIN (ANALYZE) of the member lane's statement for member 2 of guild 1, nine rows
    wanted, no places asked for, planned in `mode` (plan_cache_mode): its top node."""
    first_person = "'" + recall_statements.FIRST_PERSON.replace("'", "''") + "'"
    terms = "'{}', '{}', '{}', '{}'"
    arguments = f"1, 2, NULL, '{{}}', NULL, NULL, {terms}, {first_person}, 9, NULL"
    return await prepared_plan(db_pool, recall_statements._STATEMENTS, arguments, mode)


_WORDS = ("kayak", "violin", "sourdough", "chess", "orchid", "tango", "glacier")


@pytest.mark.parametrize("mode", ["force_custom_plan", "force_generic_plan"])
async def test_a_members_words_are_looked_up_once_whatever_the_plan(
    db_pool: asyncpg.Pool, mode: str
) -> None:
    """A statement's information (its words looked up in the rarity counts) is what the member
    lane costs: thousands of look-ups for a member's 500 newest messages. Each line scored in
    the filter and again for its rank, each word as often as it was said, it cost a reply's
    search 42 ms on the recall bench's 200,000-message guild; each distinct word looked up once
    into one map, 18 ms. Inlined, that map was rebuilt for every line by PostgreSQL's generic
    plan (kept after a statement's fifth run on a connection): 3.9 s a search. Every plan it
    may pick looks each distinct word up once."""
    said = [
        f"I tried the {_WORDS[n % 7]} and {_WORDS[(n + 3) % 7]} again, zq{chr(97 + n)}"
        for n in range(26)
    ]
    await insert_messages(
        db_pool, [chat_message(None, text, guild_id=1, author_id=2) for text in said]
    )
    distinct = await db_pool.fetchval(
        "SELECT count(DISTINCT w.lexeme) FROM messages m, unnest(m.search) AS w"
        " WHERE m.guild_id = 1 AND m.author_id = 2"
    )
    plan = await _statements_plan(db_pool, mode)
    assert plan["Actual Rows"] == 9, "the member's statements with a rare word"
    assert 0 < summed(plan, _lookup_loops) <= distinct, plan


def _lookups(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's nodes that look a line's word up in the rarity counts."""
    found = [node] if _lookup_loops(node) else []
    return found + [n for child in node.get("Plans", []) for n in _lookups(child)]


def _invented_word(n: int) -> str:
    letters = "bcdfghjklmnpqrstvwxz"
    return "q" + "".join(letters[(n // 20**k) % 20] for k in range(3)) + "u"


async def test_a_members_words_are_looked_up_by_their_key_on_stale_statistics(
    db_pool: asyncpg.Pool,
) -> None:
    """Statistics taken before a guild had words (autovacuum samples a table now and then, and
    a guild grows in between) made the planner read all of the guild's counts for each word, as
    a join filtered on the word: on the recall bench's busy guild 1,852 words x 10,083 counts,
    3 s, past the search's time limit. Each word is looked up by the whole key, whatever the
    statistics say."""
    await insert_messages(db_pool, [chat_message(None, "an older guild", guild_id=9, author_id=5)])
    await db_pool.execute("ANALYZE recall_terms")  # guild 1 has no word yet
    said = [
        f"I saw {_invented_word(3 * n)} {_invented_word(3 * n + 1)} {_invented_word(3 * n + 2)}"
        for n in range(400)
    ]
    await insert_messages(
        db_pool, [chat_message(None, text, guild_id=1, author_id=2) for text in said]
    )
    plan = await _statements_plan(db_pool, "auto")
    lookups = _lookups(plan)
    assert lookups, plan
    for node in lookups:
        assert "term = " in node.get("Index Cond", ""), node
        assert node["Actual Rows"] + node.get("Rows Removed by Filter", 0) <= 1, node


async def test_an_exchange_reads_only_the_few_lines_around_each_hit(
    db_pool: asyncpg.Pool,
) -> None:
    """An exchange is the few lines around a hit in its channel. With its time bound a
    condition of the read, the planner could not estimate that bound and read each hit's whole
    channel side (a bitmap scan and a sort: 100 ms for 36 hits in a 200,000-message guild of
    50 channels). Now it reads the few lines, and the bounds judge those."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    channels = 20
    messages = [
        chat_message(
            1000 + n,
            f"line {n}",
            guild_id=1,
            channel_id=100 + n % channels,
            created_at=start + timedelta(seconds=30 * n),
        )
        for n in range(6000)
    ]
    await insert_messages(db_pool, messages)
    await db_pool.execute("ANALYZE messages")  # as autovacuum keeps a live table
    in_channel = [(m.message_id, m.channel_id, m.created_at, None) for m in messages][5::channels]
    hits = in_channel[len(in_channel) // 2 :][:3]
    lines = len(hits) * (LINES_BEFORE + LINES_AFTER)
    async with search_session(db_pool, custom_plans=True) as db:
        [plan] = await db.fetchval(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + recall_exchange._AROUND,
            1,
            *by_column(hits),
            *Exclusions().arguments(),
        )
        assert len(await around(db, 1, hits, Exclusions())) == lines
    assert summed(plan["Plan"], rows_examined) <= lines, plan
