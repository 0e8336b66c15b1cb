"""Every statement a search runs reads a guild's rows a bounded number of times, also when the
table statistics predate the guild's growth.

autovacuum samples a table now and then and a live guild grows in between: on the recall
bench's busy guild, statistics taken before it was filled made the member lane look each word
up by reading all of the guild's word counts (1,852 words x 10,083 counts, 3 s, past the
search's time limit), and no test of a single statement had asked. Here PostgreSQL's
auto_explain reports the executed plan of every statement the real searches run (lanes,
feedback, the second hop, the member lane, exchanges, the nearest in meaning, forgotten
statements, channel names), on a guild filled after its statistics were taken, and no plan node
may look at more rows than the guild holds a few times over: a plan that reads the guild once
per word or per line is what this catches. It caught the nearest-in-meaning reads joining their
candidates to messages by a scan of the guild per candidate (db/embeddings.py `_by_key`). The
embedding of the lines as they grew the guild is checked too: each batch read by its key."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db.members import upsert_members
from db.pool import PooledConnection, _init_connection
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.wiring import Memory, open_memory
from tests.plans import looked_at, nodes
from tests.support import chat_message

# Each connection listens for its plans; asyncpg warns that a listener goes back to the pool,
# where the pool's reset removes it (and the next acquire adds it again).
pytestmark = pytest.mark.filterwarnings("ignore:.*active log listener:Warning")

G, SAM, BOB, ANA = 1, 2, 3, 4
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
DAYS, LINES_A_DAY = 12, 100
# The plans of every statement run in a connection of this database, sent to the client.
_EXPLAIN = {
    "session_preload_libraries": "auto_explain",
    "auto_explain.log_min_duration": "0",
    "auto_explain.log_analyze": "on",
    "auto_explain.log_format": "json",
    "auto_explain.log_level": "notice",
    "auto_explain.log_nested_statements": "on",
}
# Times a plan node may look at every row of the guild (its messages and its word counts).
READS_OF_THE_GUILD = 3
_TOPICS = ("kayak", "violin", "sourdough", "chess", "orchid", "tango", "glacier", "pottery")


def _invented(n: int) -> str:
    letters = "bcdfghjklmnpqrstvwxz"
    return "q" + "".join(letters[(n // 20**k) % 20] for k in range(3)) + "u"


def _line(n: int) -> str:
    """A chat line: two words nobody else says, a topic many lines share, now and then a
    question."""
    topic = _TOPICS[n % len(_TOPICS)]
    said = f"I took the {topic} out with {_invented(2 * n)} and {_invented(2 * n + 1)} today"
    return said + (", did you?" if n % 9 == 0 else "")


async def _explaining(dsn: str, plans: list[dict[str, Any]]) -> asyncpg.Pool:
    """A pool whose connections report each executed plan into `plans`."""
    admin = await asyncpg.connect(dsn)
    try:
        name = await admin.fetchval("SELECT current_database()")
        for setting, value in _EXPLAIN.items():
            await admin.execute(f"ALTER DATABASE \"{name}\" SET {setting} = '{value}'")
    finally:
        await admin.close()

    def heard(_: object, message: Any) -> None:
        text = str(message.message)
        if "plan:" in text:
            plans.append(json.loads(text[text.index("{") :]))

    async def codecs(connection: asyncpg.Connection) -> None:
        await _init_connection(connection)  # the json codecs, as db/pool.py's pool has them

    async def listening(connection: Any) -> None:
        # A pool's reset drops listeners when a connection goes back: added on each acquire.
        connection.add_log_listener(heard)

    pool: asyncpg.Pool = await asyncpg.create_pool(
        dsn,
        min_size=1,
        max_size=10,
        init=codecs,
        setup=listening,
        connection_class=PooledConnection,
    )
    return pool


@dataclass(frozen=True)
class Grown:
    memory: Memory
    growing: list[dict[str, Any]]  # the plans of what ran while the guild grew
    plans: list[dict[str, Any]]  # and of what runs from then on


@pytest.fixture
async def grown(database_dsn: str, tmp_path: Path) -> AsyncIterator[Grown]:
    """Guild 1 grown by 1,200 lines of three members (stored as they arrive, embedded by the
    local model) after the database's statistics were taken, and the plans of what ran."""
    plans: list[dict[str, Any]] = []
    pool = await _explaining(database_dsn, plans)
    try:
        for table in ("messages", "recall_terms", "message_embeddings", "daily_summaries"):
            await pool.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
        # Statistics of a database where guild 1 has nothing yet.
        await pool.execute(
            "INSERT INTO messages (message_id, guild_id, channel_id, author_id, content,"
            " created_at) VALUES (1, 9, 9, 9, 'an older guild', now())"
        )
        await pool.execute("ANALYZE")
        names = (Member(G, SAM, username="Sam"), Member(G, BOB, username="Bob"))
        await upsert_members(pool, [*names, Member(G, ANA, username="Ana")])
        settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
        clock = FixedClock(NOW)
        async with open_memory(settings, clock=clock, pool=pool, telemetry=Telemetry()) as memory:
            start = NOW - timedelta(days=DAYS)
            for n in range(DAYS * LINES_A_DAY):
                at = start + timedelta(days=n // LINES_A_DAY, minutes=3 * (n % LINES_A_DAY))
                author = (SAM, BOB, ANA)[n % 3]
                line = chat_message(
                    100 + n,
                    _line(n),
                    guild_id=G,
                    channel_id=10 + n % 3,
                    author_id=author,
                    created_at=at,
                )
                assert memory.writer.submit(line)
            await memory.writer.flush()
            await memory.embeddings.settled()
            growing = list(plans)
            plans.clear()
            yield Grown(memory, growing, plans)
    finally:
        await pool.close()


async def _guild_rows(pool: asyncpg.Pool) -> int:
    return int(
        await pool.fetchval(
            "SELECT (SELECT count(*) FROM messages WHERE guild_id = $1)"
            " + (SELECT count(*) FROM recall_terms WHERE guild_id = $1)",
            G,
        )
    )


Search = Callable[[Memory], Any]


def _reply_search(question: str) -> Search:
    """The search a reply runs (memory/wiring/_reply_path.py's ReplySearch)."""
    return lambda memory: memory.recall.search(
        G,
        question,
        limit=20,
        statements=3,
        in_context=12,
        own_first_after=4,
        semantic_wait=5,
    )


# Each search, and a statement it must run (so the audit reaches it).
SEARCHES: dict[str, tuple[Search, str]] = {
    "a reply's": (_reply_search("what did Sam say about the kayak?"), "WITH nearest AS"),
    # Bob said that word once: none of Ana's lines is among the hits, her lane fills in.
    "a reply's, the named member's lane": (
        _reply_search(f"did Ana ever mention {_invented(3)}?"),
        "scanned AS MATERIALIZED (",
    ),
    # A time said: what was said then is ranked exactly (its messages by their key).
    "a reply's, a time said": (
        _reply_search("what did Bob say about chess on 19 November 2026?"),
        "WITH chosen AS MATERIALIZED",
    ),
    "a guild-wide": (
        lambda memory: memory.recall.search(G, "violin or sourdough", semantic_wait=5),
        "WITH nearest AS",
    ),
    "a member's own": (
        lambda memory: memory.recall.search(
            G, "the orchid and the tango", user_id=BOB, semantic_wait=5
        ),
        "WITH chosen AS MATERIALIZED",
    ),
}


@pytest.mark.parametrize(("search", "runs"), SEARCHES.values(), ids=SEARCHES.keys())
async def test_no_statement_of_a_search_reads_the_guild_over_and_over(
    grown: Grown, search: Search, runs: str
) -> None:
    assert await search(grown.memory), "the search found lines"
    audited = [plan for plan in grown.plans if "Plan" in plan]
    ran = [" ".join(plan["Query Text"].split()) for plan in audited]
    assert any(runs in text for text in ran), ran
    bound = READS_OF_THE_GUILD * await _guild_rows(grown.memory.pool)
    too_many = [
        f"{node['Node Type']} on {node.get('Relation Name')} looked at {looked_at(node)}"
        f" rows (> {bound}) in: {' '.join(plan['Query Text'].split())[:160]}"
        for plan in audited
        for node in nodes(plan["Plan"])
        if looked_at(node) > bound
    ]
    assert not too_many, "\n".join(too_many)


def _ran(plans: list[dict[str, Any]], marker: str) -> list[dict[str, Any]]:
    return [plan for plan in plans if marker in " ".join(plan.get("Query Text", "").split())]


async def test_embedding_a_grown_guild_reads_each_batch_by_its_key(grown: Grown) -> None:
    """A guild is embedded in batches of 100: as its lines arrive, and all at once after an
    import (`embed_guild`, newest first, each batch going on from the last). Storing a batch
    read the whole messages table to join its vectors to their messages, and each next batch
    of an import read again past every message it had embedded: quadratic, 24,312 rows looked
    at for these 1,200 lines, millions for an import of 60,000."""
    memory = grown.memory
    await memory.pool.execute("DELETE FROM message_embeddings WHERE guild_id = $1", G)
    assert await memory.embeddings.embed_guild(G) == DAYS * LINES_A_DAY
    batches = _ran([*grown.growing, *grown.plans], "INSERT INTO message_embeddings")
    assert len(batches) >= 2 * DAYS * LINES_A_DAY // 100
    for plan in batches:
        reads = [n for n in nodes(plan["Plan"]) if n.get("Relation Name") == "messages"]
        assert reads and all(looked_at(n) <= 100 for n in reads), reads
    nexts = _ran(grown.plans, "SELECT m.message_id, m.guild_id, m.content FROM messages m")
    later = [plan for plan in nexts if "$3 = NULL" not in plan.get("Query Parameters", "")]
    assert len(later) >= DAYS, "the import's batches went on from one another"
    for plan in later:
        [read] = [n for n in nodes(plan["Plan"]) if n.get("Relation Name") == "messages"]
        assert "message_id <" in read.get("Index Cond", ""), read


async def test_a_new_line_is_embedded_without_reading_the_guild_again(grown: Grown) -> None:
    """Each batch the writer stores is embedded at once. Looking for the guild's unembedded
    messages, newest first, to fill a batch of 100 with the few new ones read all of its
    history after every batch (1,200 lines here, a million in a big guild, every second):
    the new lines are read by their ids."""
    memory = grown.memory
    new = [
        chat_message(
            5000 + n, f"a new line about the {topic}", guild_id=G, author_id=SAM, created_at=NOW
        )
        for n, topic in enumerate(("kayak", "violin", "chess"))
    ]
    for line in new:
        assert memory.writer.submit(line)
    await memory.writer.flush()
    await memory.embeddings.settled()
    embedding = [plan for plan in grown.plans if "message_embeddings" in plan.get("Query Text", "")]
    embedded = await memory.pool.fetchval(
        "SELECT count(*) FROM message_embeddings WHERE message_id = ANY($1::bigint[])",
        [line.message_id for line in new],
    )
    assert embedded == len(new)
    assert embedding, "the embedding's statements were seen"
    for plan in embedding:
        for node in nodes(plan["Plan"]):
            if node.get("Relation Name") in ("messages", "message_embeddings"):
                assert looked_at(node) <= len(new), (node, plan["Query Text"])
