"""`memorybot import FILE|FOLDER...`: load DiscordChatExporter JSON exports (one channel per
file; a folder means every *.json in it).

Each file is imported in one transaction: a malformed or truncated file is reported in one line
naming the file and the problem, nothing of it is stored, and the other files still go in.
Importing a file twice adds nothing. A progress bar goes to stderr when it is a terminal.
Afterwards it explains the day window: which imported days the bot will summarise, and which
raw messages retention will delete later (with how to keep them).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TextIO

from bot.cli import CliError, open_cli_memory, plural, program
from bot.cli.options import Subparsers, command, option
from bot.cli.progress import ProgressBar
from bot.cli.settle_watch import SettleWatcher
from memory.core.clock import local_day
from memory.core.settings import Settings
from memory.ports import (
    ExportFormatError,
    ExportImporter,
    FrontDoor,
    ImportResult,
    imported_spans,
)

# Days a member's context reads: today plus the days before it rolled into the history.
WINDOW_DAYS = 7

__all__ = ["ProgressBar", "explain_window", "export_paths", "handle", "register"]


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "import",
        handle,
        option(
            "files",
            nargs="+",
            metavar="FILE",
            help="export .json files, or folders of them (every *.json inside)",
        ),
        option(
            "--include-bots",
            action="store_true",
            default=None,
            help="also import messages written by bots (default: INGEST_BOT_MESSAGES)",
        ),
        option("--no-progress", action="store_true", help="no progress bar, even on a terminal"),
        option(
            "--no-learn",
            action="store_true",
            help="do not close the imported days (no summaries or learned facts until asked)",
        ),
        help="import DiscordChatExporter JSON exports",
        description="Import DiscordChatExporter JSON exports (guild, channel and messages). "
        "Safe to repeat: messages already stored are left alone.",
    )


def export_paths(names: list[str]) -> list[Path]:
    """The files to import: each file named, and every *.json of each folder named (as
    DiscordChatExporter writes one file per channel), in name order."""
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            paths.append(path)  # a missing file is reported by the importer, with the others
            continue
        found = sorted(child for child in path.glob("*.json") if child.is_file())
        if not found:
            raise CliError(f"{path}: a folder with no *.json export in it")
        paths.extend(found)
    return paths


def _kept(result: ImportResult) -> str:
    """What a stopped import of one file kept: batches are committed as they are written."""
    if not result.new:
        return "nothing imported from it"
    return (
        f"{result.new:,} messages of it were stored; importing it again goes on from there"
        " (stored messages are skipped)"
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # the importer reports the problem


async def handle(
    args: argparse.Namespace,
    settings: Settings,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    include_bots = settings.ingest_bot_messages if args.include_bots is None else True
    failures = partial = 0
    results: list[ImportResult] = []
    paths = export_paths(args.files)
    async with open_cli_memory(settings, create=True) as memory:
        importer = memory.imports.importer(include_bots=include_bots)
        for path in paths:
            result = await _import_file(importer, path, args, out=out, err=err)
            if result is None:
                failures += 1
                continue
            partial += bool(result.bad_rows)
            results.append(result)
        learn = not getattr(args, "no_learn", False)
        await explain_window(memory, results, out=out, err=err, learned=learn)
        watcher = SettleWatcher(out, err, progress=not args.no_progress)
        await memory.imports.settle(importer, results, learn=learn, watcher=watcher)
    if failures:
        print(f"memorybot import: {failures} of {plural(len(paths), 'file')} failed", file=err)
    if partial:
        print(
            f"memorybot import: {partial} of {plural(len(paths), 'file')} had messages left out"
            " (named above); the rest of them was imported",
            file=err,
        )
    return 1 if failures or partial else 0


async def _import_file(
    importer: ExportImporter,
    path: Path,
    args: argparse.Namespace,
    *,
    out: TextIO,
    err: TextIO,
) -> ImportResult | None:
    """One export file into the database with a progress bar; None when it failed (said on
    `err`, with what was kept of it). Ctrl-C says how far it got and stops everything."""
    size = _size(path)
    bar = ProgressBar(path.name, size, stream=err, enabled=False if args.no_progress else None)
    result = ImportResult(path=path)
    try:
        await importer.import_file(path, progress=bar.update, result=result)
    except ExportFormatError as exc:
        bar.finish()
        print(f"memorybot import: {path}: {exc}; {_kept(result)}", file=err)
        return None
    except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: say how far it got
        bar.finish()
        print(
            f"memorybot import: interrupted in {path} after {result.seen:,} messages;"
            f" {_kept(result)}",
            file=err,
        )
        raise
    except Exception as exc:  # e.g. the database went away: report it, go on
        bar.finish()
        print(f"memorybot import: {path}: failed ({type(exc).__name__}); {_kept(result)}", file=err)
        return None
    bar.update(size, result.seen, force=True)
    bar.finish()
    print(result.summary(), file=out)
    for message_id, reason in result.bad_rows:
        print(f"memorybot import: {path}: message {message_id} left out: {reason}", file=err)
    return result


def _summaries_line(
    first_day: date, last_day: date, today: date, guild_arg: str, *, learned: bool
) -> str:
    """Which imported days get summaries, and how to see a memory as of an older history."""
    window_start = today - timedelta(days=WINDOW_DAYS)
    show = f"{program()} memory show --guild {guild_arg} --user NAME --now {last_day}"
    if learned:
        hint = f" To see a member's memory as of the end of this history: {show}"
        return (
            "  Summaries: every day of it that is over is closed now (below); today is "
            f"summarised when a memory is first built.{hint if last_day < window_start else ''}"
        )
    if last_day < window_start:
        return (
            f"  Summaries: the bot summarises today and the {WINDOW_DAYS} days before "
            f"({window_start} to {today}), so none of these days yet. To see the memory as "
            f"of the end of this history: {show}"
        )
    return (
        f"  Summaries: {max(first_day, window_start)} to {last_day} are within the "
        f"bot's window (today and the {WINDOW_DAYS} days before) and are summarised when "
        "a memory is first built; older days only with `summarize --date` or `--now`."
    )


def _say_retention(
    retention: int,
    first: datetime,
    last: datetime,
    now: datetime,
    timezone: str,
    *,
    out: TextIO,
    err: TextIO,
) -> None:
    """How long RETENTION_DAYS keeps the imported messages; a warning when it deletes some."""
    first_day, today = local_day(first, timezone), local_day(now, timezone)
    cutoff = now - timedelta(days=retention)
    if first < cutoff:
        which = "all of them" if last < cutoff else f"those before {local_day(cutoff, timezone)}"
        keep = (today - first_day).days + 1
        print(
            f"memorybot import: warning: RETENTION_DAYS={retention} keeps raw messages of "
            f"the last {retention} days; {which} will be deleted by the next "
            "`memorybot retention run` (the bot runs it every RETENTION_INTERVAL_HOURS). "
            f"Facts and stored summaries stay. To keep them, set RETENTION_DAYS={keep} or "
            "more before that runs.",
            file=err,
        )
    else:
        kept_until = first_day + timedelta(days=retention)
        print(
            f"  Retention: RETENTION_DAYS={retention} keeps the oldest of them until {kept_until}.",
            file=out,
        )


async def explain_window(
    memory: FrontDoor,
    results: list[ImportResult],
    *,
    out: TextIO,
    err: TextIO,
    learned: bool = False,
) -> None:
    """Per guild: the imported days, which of them get summaries, what retention deletes."""
    names: dict[int, str] = {}
    for result in results:
        if result.first_at is not None:
            names.setdefault(result.guild_id, result.guild_name or str(result.guild_id))
    retention = memory.settings.retention_days
    now = memory.clock.now()
    for guild_id, (first, last) in imported_spans(results).items():
        timezone = await memory.manager.timezone(guild_id)
        first_day, last_day = local_day(first, timezone), local_day(last, timezone)
        today = local_day(now, timezone)
        name = names[guild_id]
        guild_arg = f'"{name}"' if " " in name else name
        print(f"{name}: messages from {first_day} to {last_day} ({timezone} days).", file=out)
        print(_summaries_line(first_day, last_day, today, guild_arg, learned=learned), file=out)
        _say_retention(retention, first, last, now, timezone, out=out, err=err)
