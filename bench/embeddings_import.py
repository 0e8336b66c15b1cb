"""A chat export imported as `memorybot import` does, with and without the local embedder:
what recall by meaning costs an import (issue 43.2's "60,000-message import with and without").

One synthetic guild (bench/synthetic.py, 1,000 messages a day) is written as a
DiscordChatExporter JSON export of one channel, then imported twice, each time into a fresh
database through the real import path (`memory.imports`, as `memorybot import --no-learn`:
the file, then its episodes cut and its messages embedded): once with LOCAL_EMBEDDINGS=false
(`vectors: none`), once with the default local embedder (`vectors: local`: every message
embedded and stored in pgvector). Figures: `import_s` and `import_messages_per_s` for each;
the days' close is the same either way and is left out. Then, on the imported guild with its
vectors, LIVE_BATCHES batches of LIVE_LINES new lines go through the writer as a live channel's
do, each embedded by the feed before the next (`live_batch_embed_ms` p50/p99: from the batch's
flush until its lines are embedded).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.chat_export import exported_channel, exported_message
from bench.database import BenchServer
from bench.harness import bench_settings
from bench.report import Reporter, percentile
from bench.synthetic import GuildSpec, SyntheticGuild
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage
from memory.core.telemetry import Telemetry
from memory.ports import EMBEDDED
from memory.wiring import Memory, open_memory

BENCH = "embeddings"
MESSAGES_PER_DAY = 1000
# Live lines after the import: batches, and lines a batch (a busy channel's second).
LIVE_BATCHES, LIVE_LINES = 30, 5


def export_of(guild: SyntheticGuild, messages: int) -> dict[str, Any]:
    """The guild's first `messages` messages as one channel's DiscordChatExporter export."""
    names = {member.user_id: member.username or str(member.user_id) for member in guild.members()}
    exported: list[dict[str, Any]] = []
    for day in guild.all_messages():  # oldest day first
        for message in day[: messages - len(exported)]:
            author = (message.author_id, names[message.author_id], None)
            exported.append(
                exported_message(message.message_id, message.created_at, message.content, author)
            )
        if len(exported) == messages:
            break
    spec = guild.spec
    return exported_channel(
        (spec.guild_id, "bench guild"), (_channel_id(spec), "general"), exported
    )


def _channel_id(spec: GuildSpec) -> int:
    """The one channel of the export (and of the live lines after it)."""
    return 10_000 + spec.guild_id * 100


async def _live_batches(memory: Memory, guild: SyntheticGuild) -> list[float]:
    """Milliseconds from each live batch's flush until the feed embedded its lines."""
    spec = guild.spec
    first = 1 + int(await memory.pool.fetchval("SELECT max(message_id) FROM messages"))
    author = next(iter(guild.members())).user_id
    took = []
    for batch in range(LIVE_BATCHES):
        for line in range(LIVE_LINES):
            number = batch * LIVE_LINES + line
            memory.writer.submit(
                ChatMessage(
                    first + number,
                    spec.guild_id,
                    _channel_id(spec),
                    author,
                    f"a live line, number {number}, about the harbour and the ferry",
                    spec.now,
                )
            )
        await memory.writer.flush()
        began = time.perf_counter()
        await memory.embeddings.settled()
        took.append((time.perf_counter() - began) * 1000)
    new = [first + n for n in range(LIVE_BATCHES * LIVE_LINES)]
    stored = await memory.pool.fetchval(
        "SELECT count(*) FROM message_embeddings WHERE message_id = ANY($1::bigint[])", new
    )
    if stored != len(new):
        raise RuntimeError(f"the feed embedded {stored} of {len(new)} live lines")
    return took


async def _import(
    server: BenchServer, path: Path, guild: SyntheticGuild, *, vectors: bool
) -> tuple[float, list[float]]:
    """Seconds to import `path` into a fresh database (and embed it, with `vectors`), and with
    `vectors` the live batches' embedding times after it."""
    settings = bench_settings(
        llm_provider="offline", telemetry_stdout=False, local_embeddings=vectors
    )
    name = f"import_{'local' if vectors else 'none'}"
    async with (
        server.pool(name) as pool,
        open_memory(
            settings,
            clock=FixedClock(guild.spec.now),
            telemetry=Telemetry(keep_recent=10),
            pool=pool,
        ) as memory,
    ):
        began = time.perf_counter()
        importer = memory.imports.importer(include_bots=False)
        result = await importer.import_file(path)
        # What `memorybot import --no-learn` does after its files: its own code.
        settled = await memory.imports.settle(importer, [result], learn=False)
        embedded = sum(step.count for step in settled if step.step == EMBEDDED)
        seconds = time.perf_counter() - began
        live = await _live_batches(memory, guild) if vectors else []
    if result.new == 0 or (vectors and not embedded):
        raise RuntimeError(f"the import stored {result.new} messages and embedded {embedded}")
    return seconds, live


async def run(server: BenchServer, report: Reporter, *, messages: int) -> None:
    """Import the same `messages`-message export without and with the local embedder."""
    days = max(1, -(-messages // MESSAGES_PER_DAY))
    guild = SyntheticGuild(GuildSpec(messages_per_day=MESSAGES_PER_DAY, days=days))
    export = export_of(guild, messages)
    count = len(export["messages"])
    with tempfile.TemporaryDirectory(prefix="memorybot-import-bench-") as folder:
        path = Path(folder) / "export.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        for vectors in (False, True):
            seconds, live = await _import(server, path, guild, vectors=vectors)
            params = {"vectors": "local" if vectors else "none", "messages": count}
            report(BENCH, "import_s", seconds, "s", **params)
            report(BENCH, "import_messages_per_s", count / seconds, "msg/s", **params)
            if live:
                batch = {"messages": count, "batches": len(live), "lines": LIVE_LINES}
                report(BENCH, "live_batch_embed_p50_ms", percentile(live, 0.5), "ms", **batch)
                report(BENCH, "live_batch_embed_p99_ms", percentile(live, 0.99), "ms", **batch)
