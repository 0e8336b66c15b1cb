"""`memorybot migrate`: apply pending database migrations and exit."""

from __future__ import annotations

import argparse

from memory.core.settings import Settings
from memory.ports import migrate_database


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("migrate", help="apply pending database migrations")
    parser.set_defaults(handler=handle)


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    version = await migrate_database(settings)
    print(f"database schema at version {version}")
    return 0
