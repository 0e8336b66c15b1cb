"""`memorybot run`: the Discord bot when DISCORD_TOKEN is set, else the offline console."""

from __future__ import annotations

import argparse
import logging

from bot.cli import log_format
from bot.cli.options import Subparsers, command
from memory.core.settings import Settings
from memory.ports import describe_database, embedded_exists

_log = logging.getLogger(__name__)


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "run",
        handle,
        help="start the Discord bot (the offline console when DISCORD_TOKEN is unset)",
    )


def handle(args: argparse.Namespace, settings: Settings) -> int:
    if settings.discord_token is None:
        from bot.cli.console import handle as console

        return console(args, settings)  # explains itself, then chats offline
    from bot.client import run_bot

    shards = settings.shards
    if shards.count != 1:  # several processes share the logs: say whose line it is
        tag_logs(f"shards {shards.describe()}")
    if not embedded_exists(settings):
        _log.warning("creating a new database: %s", describe_database(settings))
    return run_bot(settings)


def tag_logs(tag: str) -> None:
    """Put `[tag]` in every log line of this process (after `configure_logging`)."""
    formatter = logging.Formatter(log_format(tag))
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
