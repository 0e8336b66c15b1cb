"""`memorybot db serve`: the embedded PostgreSQL in the foreground, for several processes.

Prints one line `DATABASE_URL=...` that shards and workers on this machine use, then runs until
Ctrl-C or SIGTERM, and stops the server. Try scale-out on a laptop without installing
PostgreSQL.
"""

from __future__ import annotations

import argparse

from bot.cli import stop_event
from bot.cli.options import Subparsers, command, group
from memory.core.settings import Settings
from memory.ports import serve_database


def register(subparsers: Subparsers) -> None:
    command(
        group(subparsers, "db", help="the embedded database"),
        "serve",
        handle_serve,
        help="run the embedded PostgreSQL in the foreground and print its DATABASE_URL",
        description="Start (and migrate) the embedded PostgreSQL under DATA_DIR, print "
        "DATABASE_URL=... for other processes, and run until Ctrl-C or SIGTERM.",
        uses_database=False,
    )


async def handle_serve(args: argparse.Namespace, settings: Settings) -> int:
    stop = stop_event()
    async with serve_database(settings) as url:
        print(f"DATABASE_URL={url}", flush=True)
        await stop.wait()
    print("embedded PostgreSQL stopped", flush=True)
    return 0
