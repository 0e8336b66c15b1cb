"""`memorybot console`: the offline terminal front end (placeholder until the console lands).

It already proves the local set-up: the embedded database starts, migrates and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.runtime import open_runtime
from memory.settings import Settings

BANNER = """memorybot console (no DISCORD_TOKEN set, so no Discord connection).
Database ready (schema v{version}); LLM provider: {provider}.
The interactive console is not built yet; type lines and press Ctrl-D to quit.
Set DISCORD_TOKEN in .env to run the real bot (see README)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("console", help="offline terminal chat with the bot")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_console(settings))


async def _console(settings: Settings) -> int:
    async with open_runtime(settings, telemetry_stdout=False) as runtime:
        version = await runtime.pool.fetchval("SELECT max(version) FROM schema_migrations")
        print(BANNER.format(version=version, provider=settings.provider), flush=True)
        loop = asyncio.get_running_loop()
        while await loop.run_in_executor(None, sys.stdin.readline):
            pass
    return 0
