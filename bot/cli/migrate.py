"""`memorybot migrate`: apply pending database migrations and exit."""

from __future__ import annotations

import argparse

from db.lifecycle import open_database
from memory.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("migrate", help="apply pending database migrations")
    parser.set_defaults(handler=handle)


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    url = settings.database_url.get_secret_value() if settings.database_url else None
    async with open_database(url, settings.data_dir) as pool:
        version = await pool.fetchval("SELECT max(version) FROM schema_migrations")
    print(f"database schema at version {version}")
    return 0
