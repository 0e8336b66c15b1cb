"""`memorybot import FILE...`: load DiscordChatExporter JSON exports (one channel per file).

Each file is imported in one transaction: a malformed or truncated file is reported in one line
naming the file and the problem, nothing of it is stored, and the other files still go in.
Importing a file twice adds nothing. A progress bar goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from bot.cli import open_cli_memory
from memory import ExportFormatError
from memory.core.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import DiscordChatExporter JSON exports",
        description="Import DiscordChatExporter JSON exports (guild, channel and messages). "
        "Safe to repeat: messages already stored are left alone.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="export .json files")
    parser.add_argument(
        "--include-bots",
        action="store_true",
        default=None,
        help="also import messages written by bots (default: INGEST_BOT_MESSAGES)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar, even on a terminal"
    )
    parser.set_defaults(handler=handle)


class ProgressBar:
    """One self-overwriting line: file name, bar by bytes read, messages so far."""

    def __init__(
        self,
        label: str,
        total_bytes: int,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        width: int = 30,
        min_interval: float = 0.1,
    ) -> None:
        self._label = label
        self._total = max(total_bytes, 1)
        self._stream = stream or sys.stderr
        self.enabled = self._stream.isatty() if enabled is None else enabled
        self._width = width
        self._min_interval = min_interval
        self._last = 0.0

    def update(self, done_bytes: int, messages: int, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < self._min_interval:
            return
        self._last = now
        fraction = min(done_bytes / self._total, 1.0)
        filled = int(fraction * self._width)
        bar = "#" * filled + "." * (self._width - filled)
        self._stream.write(f"\r{self._label} [{bar}] {fraction:4.0%} {messages:,} messages")
        self._stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self._stream.write("\n")
            self._stream.flush()


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
    failures = 0
    async with open_cli_memory(settings) as memory:
        importer = memory.importer(include_bots=include_bots)
        for name in args.files:
            path = Path(name)
            size = _size(path)
            bar = ProgressBar(
                path.name, size, stream=err, enabled=False if args.no_progress else None
            )
            try:
                result = await importer.import_file(path, progress=bar.update)
            except ExportFormatError as exc:
                bar.finish()
                print(f"memorybot import: {path}: {exc}; nothing imported from it", file=err)
                failures += 1
                continue
            except Exception as exc:  # e.g. the database went away: report it, go on
                bar.finish()
                print(
                    f"memorybot import: {path}: failed ({type(exc).__name__}); nothing imported"
                    " from it",
                    file=err,
                )
                failures += 1
                continue
            bar.update(size, result.seen, force=True)
            bar.finish()
            print(result.summary(), file=out)
    if failures:
        print(f"memorybot import: {failures} of {len(args.files)} files failed", file=err)
        return 1
    return 0
