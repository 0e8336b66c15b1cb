"""`memorybot health`: one line and exit 0 when the database answers and, for a running bot,
its gateway heartbeat is recent; exit 1 otherwise. The container's HEALTHCHECK runs it.
"""

from __future__ import annotations

import argparse

from bot.cli import NO_DATABASE_IN_CONTAINER
from bot.cli.bounds import decimal
from bot.cli.options import Subparsers, command, option
from bot.heartbeat import MAX_AGE_SECONDS, heartbeat_age, heartbeat_path
from memory.core.paths import in_container
from memory.core.settings import Settings
from memory.ports import DatabaseUnavailable, breaker_report, check_database


def register(subparsers: Subparsers) -> None:
    # Checks the container guard itself: a health check answers 0 or 1, never 2.
    command(
        subparsers,
        "health",
        handle,
        option(
            "--max-age",
            type=decimal(1, 86_400),
            default=MAX_AGE_SECONDS,
            help=f"oldest acceptable heartbeat in seconds (default {MAX_AGE_SECONDS:.0f})",
        ),
        option(
            "--require-bot",
            action="store_true",
            help="also unhealthy when no bot heartbeat exists at all",
        ),
        help="exit 0 when the database answers and a running bot's heartbeat is recent",
        description="Check the database (SELECT 1) and, when a bot runs with this LOG_DIR, the "
        "age of its gateway heartbeat file. Prints one line; exit code 0 healthy, 1 not.",
        uses_database=False,
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    if settings.database_url is None and in_container():
        print(f"unhealthy: {NO_DATABASE_IN_CONTAINER}")
        return 1
    formats: list[str] = []
    try:
        database = await check_database(settings, formats=formats)
    except DatabaseUnavailable as exc:
        print(f"unhealthy: {exc}")
        return 1
    # A model that is down degrades, it does not fail: the next provider answers meanwhile.
    breakers = breaker_report(settings.log_dir)
    llm = f"; llm circuit breaker: {breakers}" if breakers else ""
    if formats:  # negotiated down once, kept in the database: said, not a failure
        llm += f"; llm formats negotiated: {'; '.join(formats)}"
    age = heartbeat_age(settings.log_dir)
    if age is None:
        if args.require_bot:
            print(
                f"unhealthy: database ok ({database}); no bot heartbeat at "
                f"{heartbeat_path(settings.log_dir)}"
            )
            return 1
        print(f"healthy: database ok ({database}); no bot running here{llm}")
        return 0
    if age > args.max_age:
        print(
            f"unhealthy: database ok ({database}); the bot's last gateway heartbeat was "
            f"{age:.0f}s ago (limit {args.max_age:.0f}s){llm}"
        )
        return 1
    print(f"healthy: database ok ({database}); bot heartbeat {age:.0f}s ago{llm}")
    return 0
