"""A chat export imported as `memorybot import` does, with and without the local embedder:
what recall by meaning costs an import (issue 43.2's "60,000-message import with and without").

One synthetic guild (bench/synthetic.py, 1,000 messages a day) is written as a
DiscordChatExporter JSON export of one channel, then imported twice, each time into a fresh
database through the real import path (`memory.imports`, as `memorybot import --no-learn`:
the file, then its episodes cut and its messages embedded): once with LOCAL_EMBEDDINGS=false
(`vectors: none`), once with the default local embedder (`vectors: local`: every message
embedded and stored in pgvector). Figures: `import_s` and `import_messages_per_s` for each;
the days' close is the same either way and is left out.
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
from bench.report import Reporter
from bench.synthetic import GuildSpec, SyntheticGuild
from memory.core.clock import FixedClock
from memory.core.telemetry import Telemetry
from memory.ports import EMBEDDED
from memory.wiring import open_memory

BENCH = "embeddings"
MESSAGES_PER_DAY = 1000


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
        (spec.guild_id, "bench guild"), (10_000 + spec.guild_id * 100, "general"), exported
    )


async def _import(
    server: BenchServer, path: Path, guild: SyntheticGuild, *, vectors: bool
) -> float:
    """Seconds to import `path` into a fresh database (and embed it, with `vectors`)."""
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
    if result.new == 0 or (vectors and not embedded):
        raise RuntimeError(f"the import stored {result.new} messages and embedded {embedded}")
    return seconds


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
            seconds = await _import(server, path, guild, vectors=vectors)
            params = {"vectors": "local" if vectors else "none", "messages": count}
            report(BENCH, "import_s", seconds, "s", **params)
            report(BENCH, "import_messages_per_s", count / seconds, "msg/s", **params)
