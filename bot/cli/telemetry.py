"""`memorybot telemetry tail`: the telemetry file as a readable table (or raw JSON lines).

Reads `LOG_DIR/telemetry.jsonl` and its rotated backups; `-f` keeps following the file across
rotations until Ctrl-C. Guilds and members show by name when the database is reachable (ids
otherwise, and always with `--ids`), `--guild`/`--user` take names too, and on a terminal rows
are coloured by outcome (plain when piped).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import deque
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from bot.cli import CliError
from bot.cli.bounds import whole
from bot.cli.options import Subparsers, command, group, option
from memory.core.settings import Settings
from memory.core.telemetry import json_line
from memory.ports import (
    TELEMETRY_FILE,
    DatabaseUnavailable,
    EventFilter,
    FileFollower,
    NameLookup,
    check_ops,
    filter_events,
    follow_events,
    outcome_style,
    parse_since,
    read_events,
    render_header,
    render_row,
)

_log = logging.getLogger(__name__)

DEFAULT_LINES = 20


def register(subparsers: Subparsers) -> None:
    # Reads the log directory; names come from the database only when it is reachable.
    command(
        group(subparsers, "telemetry", help="read the telemetry log"),
        "tail",
        handle,
        option("-f", "--follow", action="store_true", help="keep printing new events"),
        option("--guild", help="only events of this guild (id or exact name)"),
        option("--user", help="only events about or by this member (id, or name with --guild)"),
        option(
            "--op",
            action="append",
            default=[],
            help="only these operations (repeat or comma-separate; 'llm' matches 'llm_call')",
        ),
        option(
            "--outcome",
            action="append",
            default=[],
            help="only these outcomes, e.g. error, fallback (repeat or comma-separate)",
        ),
        option("--ids", action="store_true", help="show ids, do not look names up in the database"),
        option("--since", help="only events newer than this: 10m, 2h, 1d or ISO time"),
        option(
            "-n",
            "--lines",
            type=whole(1, 1_000_000),
            default=None,
            help=f"how many past events to show (default {DEFAULT_LINES}; all with --since)",
        ),
        option("--json", action="store_true", help="print raw JSON lines"),
        option("--log-dir", type=Path, default=None, help="override LOG_DIR"),
        help="show recent telemetry events as a table",
        description="Show telemetry events from LOG_DIR/telemetry.jsonl as a table.",
        uses_database=False,
    )


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def _open_names(settings: Settings) -> NameLookup | None:
    """Names from the database, or None (ids are shown) when it cannot be reached."""
    try:
        return NameLookup(settings).open()
    except DatabaseUnavailable as exc:
        _log.info("showing ids: %s", exc)
        return None


def _resolve(args: argparse.Namespace, names: NameLookup | None) -> tuple[int | None, int | None]:
    """--guild and --user as ids; a name is looked up in the database (one line if it can't)."""
    guild_id: int | None = None
    user_id: int | None = None
    try:
        if args.guild is not None:
            guild_id = _as_id(args.guild, "--guild", names.guild_id if names else None)
        if args.user is not None:
            if guild_id is None and not args.user.strip().isdigit():
                raise CliError("--user NAME needs --guild (names belong to a guild)")
            user_id = _as_id(args.user, "--user", _user_lookup(names, guild_id))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return guild_id, user_id


def _user_lookup(names: NameLookup | None, guild_id: int | None) -> Callable[[str], int] | None:
    """A member's id by name in the guild, when names can be looked up there."""
    if names is None or guild_id is None:
        return None
    return lambda text: names.user_id(guild_id, text)


def _as_id(text: str, option: str, by_name: Callable[[str], int] | None) -> int:
    if text.strip().isdigit():
        return int(text.strip())
    if not by_name:
        raise CliError(
            f"{option} {text!r}: names need the database, which is not reachable; "
            "give the id instead"
        )
    return by_name(text)


def build_filter(
    args: argparse.Namespace,
    *,
    now: datetime,
    guild_id: int | None = None,
    user_id: int | None = None,
) -> EventFilter:
    ops = _split(args.op)
    try:
        check_ops(ops)
        since = parse_since(args.since, now=now) if args.since else None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return EventFilter(
        ops=ops,
        guild_id=guild_id,
        since=since,
        outcomes=_split(getattr(args, "outcome", [])),
        user_id=user_id,
    )


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
    build_filter(args, now=datetime.now(UTC))  # bad options fail before the database opens
    if not args.follow and not (log_dir / TELEMETRY_FILE).exists():
        raise CliError(f"no telemetry file at {log_dir / TELEMETRY_FILE} (is LOG_DIR right?)")
    wants_names = not args.ids and not args.json
    by_name = any(
        value is not None and not value.strip().isdigit() for value in (args.guild, args.user)
    )
    names = _open_names(settings) if wants_names or by_name else None
    try:
        guild_id, user_id = _resolve(args, names)
        event_filter = build_filter(args, now=datetime.now(UTC), guild_id=guild_id, user_id=user_id)
        return _tail(
            args,
            log_dir,
            event_filter,
            stream,
            names if wants_names else None,
            should_stop=should_stop,
            poll_seconds=poll_seconds,
        )
    finally:
        if names is not None:
            names.close()


def _tail(
    args: argparse.Namespace,
    log_dir: Path,
    event_filter: EventFilter,
    stream: TextIO,
    names: NameLookup | None,
    *,
    should_stop: Callable[[], bool],
    poll_seconds: float,
) -> int:
    # Open the follower first so events written while the history prints are not lost.
    follower = FileFollower(log_dir / TELEMETRY_FILE) if args.follow else None
    limit = args.lines
    if limit is None:
        limit = None if args.since else DEFAULT_LINES
    history = read_events(log_dir, current_limit=follower.start_offset if follower else None)
    recent: Iterable[dict[str, Any]] = filter_events(history, event_filter)
    if limit is not None:
        recent = deque(recent, maxlen=max(limit, 0))
    if names is not None:
        recent = list(recent)
        names.member_names(
            (int(event["guild_id"]), int(event["user_id"]))
            for event in recent
            if str(event.get("guild_id", "")).isdigit() and str(event.get("user_id", "")).isdigit()
        )

    write = _writer(stream, raw=args.json, names=names)
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


def _writer(
    stream: TextIO, *, raw: bool, names: NameLookup | None
) -> Callable[[dict[str, Any]], None]:
    """Rows as plain text when piped; coloured by outcome on a terminal (rich)."""
    console = Console(file=stream, highlight=False, soft_wrap=True, emoji=False, markup=False)
    colour = not raw and console.is_terminal and not console.no_color

    def write(event: dict[str, Any]) -> None:
        if raw:
            print(json_line(event), file=stream, flush=True)
            return
        row = render_row(event, names=names)
        if colour:
            console.print(Text(row, style=outcome_style(event) or ""))
        else:
            print(row, file=stream, flush=True)

    return write
