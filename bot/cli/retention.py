"""`memorybot retention run`: delete raw messages older than RETENTION_DAYS, print the counts."""

from __future__ import annotations

import argparse
import sys

from bot.cli import CliError, open_cli_memory
from bot.cli.bounds import whole
from bot.cli.options import Subparsers, command, group, option
from memory.core.settings import Settings
from memory.ports import MIN_RETENTION_DAYS


def register(subparsers: Subparsers) -> None:
    command(
        group(subparsers, "retention", help="delete old raw messages"),
        "run",
        handle,
        option(
            "--days", type=whole(1, 36_500), default=None, help="override RETENTION_DAYS (1-36500)"
        ),
        option("--dry-run", action="store_true", help="only count what would be deleted"),
        option("--now", default=None, help="pretend it is this ISO time (or MEMORYBOT_NOW)"),
        help="delete messages older than RETENTION_DAYS (facts and summaries stay)",
        description="Delete raw messages older than RETENTION_DAYS in bounded batches. "
        "Facts, fact history and summaries are kept.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    days = settings.retention_days if args.days is None else args.days
    if days < 1:
        raise CliError("--days must be at least 1")
    if args.days is not None and days < MIN_RETENTION_DAYS:
        # Said about --days, which is what the admin typed (RETENTION_DAYS is not in play).
        print(
            f"--days {days}: the last {MIN_RETENTION_DAYS} days are always kept (the summaries"
            f" still read them); {'counting' if args.dry_run else 'deleting'} messages older"
            f" than {MIN_RETENTION_DAYS} days",
            file=sys.stderr,
        )
        days = MIN_RETENTION_DAYS
    async with open_cli_memory(settings, args.now) as memory:
        report = await memory.retention.run(retention_days=days, dry_run=args.dry_run)
        names = await memory.privacy.guild_names(list(report.by_guild))
    print(report.describe(names))
    return 0
