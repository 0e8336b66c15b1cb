"""`memorybot migrate`: apply pending database migrations and exit."""

from __future__ import annotations

import argparse

from bot.cli.options import Subparsers, command
from memory.core.settings import Settings
from memory.ports import migrate_database


def register(subparsers: Subparsers) -> None:
    command(subparsers, "migrate", handle, help="apply pending database migrations")


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    version = await migrate_database(settings)
    print(f"database schema at version {version}")
    return 0
