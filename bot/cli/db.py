"""`memorybot db serve`: the embedded PostgreSQL in the foreground, for several processes.

Prints one line `DATABASE_URL=...` that shards and workers on this machine use, then runs until
Ctrl-C or SIGTERM, and stops the server. Try scale-out on a laptop without installing
PostgreSQL.
"""

from __future__ import annotations

import argparse

from bot.cli import stop_event
from memory.core.settings import Settings
from memory.ports import serve_database


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("db", help="the embedded database")
    commands = parser.add_subparsers(dest="db_command", metavar="SUBCOMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the embedded PostgreSQL in the foreground and print its DATABASE_URL",
        description="Start (and migrate) the embedded PostgreSQL under DATA_DIR, print "
        "DATABASE_URL=... for other processes, and run until Ctrl-C or SIGTERM.",
    )
    serve.set_defaults(handler=handle_serve, uses_database=False)
    parser.set_defaults(handler=lambda args, settings: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


async def handle_serve(args: argparse.Namespace, settings: Settings) -> int:
    stop = stop_event()
    async with serve_database(settings) as url:
        print(f"DATABASE_URL={url}", flush=True)
        await stop.wait()
    print("embedded PostgreSQL stopped", flush=True)
    return 0
