"""`memorybot console`: the offline terminal front end (also `make run` without DISCORD_TOKEN).

Reads lines from stdin, so it works interactively and from a script
(`memorybot console < script.txt`); prints the bot's answers to stdout. Piped input lines are
echoed after the speaker's prompt, so a transcript reads as a conversation.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

from bot.banner import memory_chain, startup_lines, version
from bot.cli import log_format, open_cli_memory
from bot.cli.lookup import find_guild
from bot.cli.options import Subparsers, command, option
from bot.console import CONSOLE_GUILD_ID, DEFAULT_SPEAKER, ConsoleSession
from bot.console_input import LineReader, interrupted
from memory.core import event_loop
from memory.core.settings import Settings
from memory.ports import describe_database

NO_TOKEN = """No DISCORD_TOKEN is set, so memorybot starts its offline console instead of
connecting to Discord: it reads and posts nothing on any server. Everything else is real: the
database ({database}), the memory pipeline, and the LLM provider "{provider}". To run on
Discord, put DISCORD_TOKEN in {env_file} (see README: "Creating the Discord application") and
`make run` again.
"""


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "console",
        handle,
        option("--as", dest="speaker", default=DEFAULT_SPEAKER, help="who you speak as at first"),
        option("--now", help="fix the clock (ISO date or timestamp)"),
        option(
            "--guild",
            help="speak in an existing (e.g. imported) server, by id or exact name, with its "
            "memory",
        ),
        help="offline terminal chat with the bot",
    )


def handle(args: argparse.Namespace, settings: Settings) -> int:
    return event_loop.run(run_console(args, settings))


async def run_console(args: argparse.Namespace, settings: Settings) -> int:
    opened = open_cli_memory(settings, getattr(args, "now", None), create=True)
    interactive = sys.stdin.isatty()
    if getattr(args, "command", None) == "run" or interactive:
        env_file = settings.locations.env_file if settings.locations else ".env"
        print(
            NO_TOKEN.format(
                database=describe_database(settings),
                provider=settings.provider,
                env_file=env_file,
            )
        )
    # Log lines go to the file until memory is closed too, then logging is as it was.
    with contextlib.ExitStack() as logging_kept:
        async with opened as memory:
            chain_for, model_for = memory_chain(memory)
            # What `run` logs on Discord: the version and the models each purpose uses.
            lines = startup_lines(
                settings, version=version(), chain_for=chain_for, model_for=model_for
            )
            print("\n".join(lines), file=sys.stderr, flush=True)
            log_file = logging_kept.enter_context(logs_to_file(settings.log_dir))
            print(f"(log lines go to {log_file}; errors still show here)", file=sys.stderr)
            guild_id = CONSOLE_GUILD_ID
            if getattr(args, "guild", None):
                guild_id = await find_guild(memory, args.guild)
            session = ConsoleSession(
                memory, speaker=getattr(args, "speaker", DEFAULT_SPEAKER), guild_id=guild_id
            )
            await session.start()  # `--as` names an existing member by name or id, or a new one
            print(session.banner(), flush=True)
            finished = await _converse(session, interactive)
    if not finished:  # Ctrl-C: memory is closed above, the database stopped; leave as /quit
        print("\nbye", flush=True)
    return 0


@contextlib.contextmanager
def logs_to_file(log_dir: Path) -> Iterator[Path]:
    """The chat is the screen: while the console is open, log lines go to a file and only
    errors reach the terminal (a WARNING with a raw id before a friendly answer is noise).
    Logging is as it was once the console closes (a caller in the same process keeps its)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "console.log"
    root = logging.getLogger()
    levels = {handler: handler.level for handler in root.handlers}
    for handler in levels:
        handler.setLevel(max(handler.level, logging.ERROR))
    to_file = logging.FileHandler(path, encoding="utf-8")
    to_file.setFormatter(logging.Formatter(log_format()))
    root.addHandler(to_file)
    try:
        yield path
    finally:
        root.removeHandler(to_file)
        to_file.close()
        for handler, level in levels.items():
            handler.setLevel(level)


async def _converse(session: ConsoleSession, interactive: bool) -> bool:
    """Chat until /quit, end of input (True) or Ctrl-C (False), whichever comes first."""
    stop = interrupted()
    chat = asyncio.create_task(_chat(session, interactive))
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({chat, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if chat.done():
        chat.result()  # an error in a command is still raised
        return True
    chat.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await chat
    return False


async def _chat(session: ConsoleSession, interactive: bool) -> None:
    reader = LineReader()
    while not session.finished:
        if interactive:
            print(f"{session.speaker.display_name}> ", end="", flush=True)
        line = await reader.readline()
        if not line:
            if interactive:
                print()  # Ctrl-D leaves the prompt line open
            break
        if not interactive and line.strip():
            # A transcript shows who said what, as the interactive prompt would.
            print(f"{session.speaker.display_name}> {line.rstrip()}", flush=True)
        for output in await session.handle_line(line):
            print(output, flush=True)
