"""`memorybot telemetry tail`: the telemetry file as a readable table (or raw JSON lines).

Reads `LOG_DIR/telemetry.jsonl` and its rotated backups; `-f` keeps following the file across
rotations until Ctrl-C. Needs no database, so it works next to a running bot.
"""

from __future__ import annotations

import argparse
import sys
from collections import deque
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from bot.cli import CliError
from memory import (
    TELEMETRY_FILE,
    EventFilter,
    FileFollower,
    filter_events,
    follow_events,
    parse_since,
    read_events,
    render_header,
    render_row,
)
from memory.core.settings import Settings
from memory.core.telemetry import json_line

DEFAULT_LINES = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("telemetry", help="read the telemetry log")
    commands = parser.add_subparsers(dest="telemetry_command", metavar="SUBCOMMAND")
    tail = commands.add_parser(
        "tail",
        help="show recent telemetry events as a table",
        description="Show telemetry events from LOG_DIR/telemetry.jsonl as a table.",
    )
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    tail.add_argument("--guild", type=int, help="only events of this guild id")
    tail.add_argument(
        "--op",
        action="append",
        default=[],
        help="only these operations (repeat or comma-separate; 'llm' matches 'llm_call')",
    )
    tail.add_argument("--since", help="only events newer than this: 10m, 2h, 1d or ISO time")
    tail.add_argument(
        "-n",
        "--lines",
        type=int,
        default=None,
        help=f"how many past events to show (default {DEFAULT_LINES}; all with --since)",
    )
    tail.add_argument("--json", action="store_true", help="print raw JSON lines")
    tail.add_argument("--log-dir", type=Path, default=None, help="override LOG_DIR")
    tail.set_defaults(handler=handle)
    parser.set_defaults(handler=lambda args, settings: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def build_filter(args: argparse.Namespace, *, now: datetime) -> EventFilter:
    ops = tuple(op.strip() for value in args.op for op in value.split(",") if op.strip())
    try:
        since = parse_since(args.since, now=now) if args.since else None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return EventFilter(ops=ops, guild_id=args.guild, since=since)


def handle(
    args: argparse.Namespace,
    settings: Settings,
    *,
    out: TextIO | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    poll_seconds: float = 0.5,
) -> int:
    stream = out or sys.stdout
    log_dir: Path = args.log_dir or settings.log_dir
    event_filter = build_filter(args, now=datetime.now(UTC))
    if not args.follow and not (log_dir / TELEMETRY_FILE).exists():
        raise CliError(f"no telemetry file at {log_dir / TELEMETRY_FILE} (is LOG_DIR right?)")

    # Open the follower first so events written while the history prints are not lost.
    follower = FileFollower(log_dir / TELEMETRY_FILE) if args.follow else None
    limit = args.lines
    if limit is None:
        limit = None if args.since else DEFAULT_LINES
    history = read_events(log_dir, current_limit=follower.start_offset if follower else None)
    recent: Iterable[dict[str, Any]] = filter_events(history, event_filter)
    if limit is not None:
        recent = deque(recent, maxlen=max(limit, 0))

    write = _writer(stream, raw=args.json)
    if not args.json:
        print(render_header(), file=stream, flush=True)
    for event in recent:
        write(event)
    if follower is None:
        return 0
    for event in filter_events(
        follow_events(follower, poll_seconds=poll_seconds, should_stop=should_stop),
        event_filter,
    ):
        write(event)
    return 0


def _writer(stream: TextIO, *, raw: bool) -> Callable[[dict[str, Any]], None]:
    def write(event: dict[str, Any]) -> None:
        print(json_line(event) if raw else render_row(event), file=stream, flush=True)

    return write
