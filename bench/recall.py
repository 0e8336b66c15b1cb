"""Recall search on a big guild: `RecallService.search` timed for natural questions.

    python -m bench.recall [--messages 1000000] [--members 500] [--days 365] [--repeats 20]
                           [--no-english] [--copy] [--no-vectors]

One guild is filled inside PostgreSQL with generate_series (or with COPY from Python with
`--copy`; bench/recall_data.py: Zipf-distributed words, day summaries, a planted message
answering each question), then every question is searched `repeats` times
as `/recall` and `memorybot recall` do (whole guild, and `--user` for the most active member).
Figures: search p50/p99/max in ms over all questions and per question, how many hits came back,
whether the planted answer came first, the same for 30-word questions
(`search_30_words_p99_ms`), the guild's size on disk, the fill rate, and how long
switching the guild to the 'english' configuration takes (re-indexing every row) with the
search figures again under 'english'. Figures carry `vectors`: "none" for full text alone, then
"local" once every message has a vector and the search fuses the local embedder's nearest
messages, as the default install does (bench/recall_hybrid.py; the 'english' figures are
hybrid). Figures carry `channels` too: the guild above spreads its messages over 8; then a
second guild, a fifth of its size, over 50 (BUSY_GUILD) is filled beside it and searched with
full text alone, where an hour of one channel holds a line or two.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from functools import partial
from typing import Any

import asyncpg

from bench.database import BenchServer, bench_server
from bench.harness import timed
from bench.recall_data import LONG_QUESTIONS, QUESTIONS, RecallGuild, fill
from bench.recall_hybrid import fill_vectors, local_index
from bench.report import Reporter, percentile
from db.embedded_settings import SHARED_BUFFERS_BYTES
from db.embeddings import hnsw_index
from memory.core import event_loop
from memory.guilds import GuildDefaults, update_guild_settings
from memory.llm.embeddings._local import WIDTH
from memory.recall import RecallService

_log = logging.getLogger(__name__)

BENCH = "recall"
GUILD = 7
# A second guild, a fifth of the first's size in BUSY_CHANNELS channels, searched with full
# text alone last: an hour of one of its channels holds few lines, so a hit's exchange read
# that scanned for lines within its time bound read far (200 ms p99 at 200,000 messages).
BUSY_GUILD = 8
BUSY_CHANNELS = 50
LIMIT = 5  # what /recall shows
# What a reply's search adds: a named member's most informative statements
# (memory/recall/_member.py).
REPLY_STATEMENTS = 3


def _scopes(guild: RecallGuild) -> tuple[tuple[str, int | None, int], ...]:
    """(scope, member filter, member-lane statements): /recall over the guild, /recall of the
    busiest member, and a reply's search (the guild, plus the named member's statements)."""
    return (("guild", None, 0), ("member", guild.user_ids[0], 0), ("reply", None, REPLY_STATEMENTS))


async def run(
    pool: asyncpg.Pool,
    report: Reporter,
    *,
    messages: int = 1_000_000,
    members: int = 500,
    days: int = 365,
    repeats: int = 20,
    summaries_per_day: int = 20,
    english: bool = True,
    copy: bool = False,
    vectors: bool = True,
) -> dict[str, float]:
    """Fill, measure, print the figures; return the headline ones."""
    guild = RecallGuild(GUILD, messages, members, days)
    began = time.perf_counter()
    stored = await fill(pool, guild, summaries_per_day=summaries_per_day, sql=not copy)
    fill_seconds = time.perf_counter() - began
    params: dict[str, Any] = {
        "guild_messages": stored,
        "members": members,
        "days": days,
        "fill": "copy" if copy else "sql",
        "channels": guild.channels,
    }
    report(BENCH, "fill_messages_per_s", stored / fill_seconds, "msg/s", **params)
    for name, value in (await _sizes(pool)).items():
        report(BENCH, name, value, "MB", **params)
    # What the searches' pages are cached in (the embedded server sizes it, db/embedded_settings).
    buffers = await pool.fetchval(SHARED_BUFFERS_BYTES)
    report(BENCH, "shared_buffers_mb", buffers / 2**20, "MB", **params)
    service = RecallService(pool)
    simple = {**params, "config": "simple", "vectors": "none"}
    results = await _searches(service, report, guild, repeats, simple)
    results |= await _long_questions(service, report, repeats, simple)
    if vectors:
        index = local_index(pool)
        build = await fill_vectors(pool, index)
        report(BENCH, "hnsw_build_s", build, "s", vectors="local", **params)
        size = await pool.fetchval("SELECT pg_relation_size($1::regclass)", hnsw_index(WIDTH))
        report(BENCH, "hnsw_index_mb", size / 2**20, "MB", vectors="local", **params)
        service = RecallService(pool, embeddings=index)
        simple["vectors"] = "local"
        results = await _searches(service, report, guild, repeats, simple)
        results |= await _long_questions(service, report, repeats, simple)
    if english:
        began = time.perf_counter()
        await update_guild_settings(pool, GUILD, GuildDefaults(), search_config="english")
        report(BENCH, "reindex_s", time.perf_counter() - began, "s", config="english", **params)
        await pool.execute("VACUUM ANALYZE messages")
        config = {**params, "config": "english", "vectors": simple["vectors"]}
        await _searches(service, report, guild, repeats, config)
        await _long_questions(service, report, repeats, config)
    busy = RecallGuild(BUSY_GUILD, messages // 5, members, days, channels=BUSY_CHANNELS)
    await _busy_guild(pool, report, busy, repeats, params, summaries_per_day, sql=not copy)
    return results


async def _busy_guild(
    pool: asyncpg.Pool,
    report: Reporter,
    busy: RecallGuild,
    repeats: int,
    params: dict[str, Any],
    summaries_per_day: int,
    *,
    sql: bool,
) -> None:
    """The guild of many channels, filled beside the first and searched with full text."""
    stored = await fill(pool, busy, summaries_per_day=summaries_per_day, sql=sql)
    busy_params = {**params, "guild_messages": stored, "channels": busy.channels}
    busy_params |= {"config": "simple", "vectors": "none"}
    await _searches(RecallService(pool), report, busy, repeats, busy_params)


async def _searches(
    service: RecallService,
    report: Reporter,
    guild: RecallGuild,
    repeats: int,
    params: dict[str, Any],
) -> dict[str, float]:
    """Every question `repeats` times, for the whole guild and for its busiest member."""
    results: dict[str, float] = {}
    for scope, user_id, statements in _scopes(guild):
        everything: list[float] = []
        firsts: list[float] = []  # each question's first search: its rows not yet cached
        hits_returned: list[int] = []
        first = in_top = 0
        for needle in QUESTIONS:
            timings = []
            for _ in range(repeats):
                millis, hits = await timed(
                    partial(
                        service.search,
                        guild.guild_id,
                        needle.question,
                        user_id=user_id,
                        limit=LIMIT,
                        statements=statements,
                    )
                )
                timings.append(millis)
            everything += timings
            firsts.append(timings[0])
            hits_returned.append(len(hits))
            first += bool(hits) and hits[0].text == needle.answer
            in_top += any(hit.text == needle.answer for hit in hits)
            if scope == "guild":
                report(
                    BENCH,
                    "question_p50_ms",
                    percentile(timings, 0.5),
                    "ms",
                    question=needle.question,
                    answer_first=bool(hits) and hits[0].text == needle.answer,
                    **params,
                )
        common = {"scope": scope, "samples": len(everything), **params}
        for name, fraction in (("p50", 0.5), ("p99", 0.99), ("max", 1.0)):
            value = percentile(everything, fraction)
            report(BENCH, f"search_{name}_ms", value, "ms", **common)
            results[f"{scope}_{name}_ms"] = value
        for name, fraction in (("p50", 0.5), ("max", 1.0)):
            value = percentile(firsts, fraction)
            report(
                BENCH, f"first_search_{name}_ms", value, "ms", **{**common, "samples": len(firsts)}
            )
        report(BENCH, "hits_per_search", sum(hits_returned) / len(QUESTIONS), "rows", **common)
        if scope == "guild":
            report(BENCH, "answer_first", first / len(QUESTIONS), "fraction", **common)
            report(BENCH, f"answer_in_top{LIMIT}", in_top / len(QUESTIONS), "fraction", **common)
    return results


async def _long_questions(
    service: RecallService, report: Reporter, repeats: int, params: dict[str, Any]
) -> dict[str, float]:
    """The 30-word questions (issue 25.5's figure), whole guild: latency and whether the
    planted answer is still in the top LIMIT."""
    timings: list[float] = []
    found = 0
    for needle in LONG_QUESTIONS:
        for _ in range(repeats):
            millis, hits = await timed(partial(service.search, GUILD, needle.question, limit=LIMIT))
            timings.append(millis)
        found += any(hit.text == needle.answer for hit in hits)
    common = {"scope": "guild", "words": 30, "samples": len(timings), **params}
    results = {}
    for name, fraction in (("p50", 0.5), ("p99", 0.99), ("max", 1.0)):
        value = percentile(timings, fraction)
        report(BENCH, f"search_30_words_{name}_ms", value, "ms", **common)
        results[f"30_words_{name}_ms"] = value
    report(
        BENCH, f"answer_in_top{LIMIT}_30_words", found / len(LONG_QUESTIONS), "fraction", **common
    )
    return results


async def _sizes(pool: asyncpg.Pool) -> dict[str, float]:
    """On-disk size of the messages table and of its search index, in MB."""
    row = await pool.fetchrow(
        """
        SELECT pg_total_relation_size('messages') AS total,
               pg_relation_size('messages_search_idx') AS search_index
        """
    )
    assert row is not None
    return {
        "messages_table_mb": row["total"] / 2**20,
        "search_index_mb": row["search_index"] / 2**20,
    }


async def run_in(server: BenchServer, report: Reporter, **options: Any) -> dict[str, float]:
    """`run` in a fresh database of `server`."""
    async with server.pool("recall") as pool:
        return await run(pool, report, **options)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-english", action="store_true", help="skip the re-index")
    parser.add_argument(
        "--no-vectors", action="store_true", help="full text only (no embeddings, no HNSW)"
    )
    parser.add_argument(
        "--copy", action="store_true", help="generate the chat in Python and COPY it (slower)"
    )
    args = parser.parse_args(argv)
    report = Reporter()
    async with bench_server() as server:
        await run_in(
            server,
            report,
            messages=args.messages,
            members=args.members,
            days=args.days,
            repeats=args.repeats,
            english=not args.no_english,
            copy=args.copy,
            vectors=not args.no_vectors,
        )
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(event_loop.run(main()))
