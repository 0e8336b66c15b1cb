"""Reading telemetry lines back for humans: parse, filter, render as a table, follow the file.

`memorybot telemetry tail` is a thin shell around this module. The file is the one written by
`RotatingFileSink` (`LOG_DIR/telemetry.jsonl` plus `.1`, `.2`, ... backups, `.1` the newest).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from memory.core.clock import ensure_aware, parse_now
from memory.telemetry._catalogue import OPS, TELEMETRY_FILE

_log = logging.getLogger(__name__)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|w)?\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400}
_UNIT_SECONDS["w"] = 7 * 86400

# Columns every row shows; the remaining fields go into "details" as key=value.
_FIXED = ("ts", "op", "outcome", "guild_id", "user_id", "latency_ms")
_HEADER = ("TIME", "OP", "OUTCOME", "GUILD", "USER", "MS", "DETAILS")
_WIDTHS = (19, 18, 8, 19, 19, 8)

# Row colour on a terminal by outcome; "ok" and unknown outcomes stay plain.
OUTCOME_STYLES: dict[str, str] = {
    "error": "bold red",
    "fallback": "yellow",
    "retry": "yellow",
    "degraded": "yellow",
    "cancelled": "yellow",
    "empty": "yellow",
    "refused": "magenta",
    "rate_limited": "magenta",
}


class NameSource(Protocol):
    """Names for the ids a row shows (None: unknown, show the id)."""

    def guild_name(self, guild_id: int) -> str | None: ...

    def member_name(self, guild_id: int, user_id: int) -> str | None: ...


def outcome_style(event: dict[str, Any]) -> str | None:
    return OUTCOME_STYLES.get(str(event.get("outcome", "")))


def check_ops(ops: Iterable[str]) -> None:
    """ValueError for an `--op` that matches no operation (a prefix such as `llm` is fine)."""
    for wanted in ops:
        if wanted in OPS or any(op.startswith(wanted + "_") for op in OPS):
            continue
        raise ValueError(f"--op: unknown operation {wanted!r}; valid: {', '.join(sorted(OPS))}")


def parse_since(value: str, *, now: datetime) -> datetime:
    """`10m`, `2h`, `1d`, `90s`, a bare number of minutes, or an ISO timestamp -> UTC moment."""
    match = _DURATION.match(value)
    if match:
        amount = float(match.group(1))
        unit = (match.group(2) or "m").lower()
        return ensure_aware(now) - timedelta(seconds=amount * _UNIT_SECONDS[unit])
    try:
        return parse_now(value)
    except ValueError:
        raise ValueError(
            f"--since: expected a duration like 10m, 2h, 1d or an ISO timestamp, got {value!r}"
        ) from None


def parse_line(line: str) -> dict[str, Any] | None:
    """One telemetry event, or None for a blank, truncated or foreign line."""
    text = line.strip()
    if not text:
        return None
    try:
        event = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(event, dict) or "op" not in event or "ts" not in event:
        return None
    return event


def event_time(event: dict[str, Any]) -> datetime | None:
    try:
        return ensure_aware(datetime.fromisoformat(str(event["ts"])))
    except (KeyError, ValueError):
        return None


@dataclass(frozen=True)
class EventFilter:
    """Which events to show: any of `ops` (prefix `llm` matches `llm_call`), any of
    `outcomes`, one guild, one member (subject or actor), newer than `since`."""

    ops: tuple[str, ...] = ()
    guild_id: int | None = None
    since: datetime | None = None
    outcomes: tuple[str, ...] = ()
    user_id: int | None = None

    def matches(self, event: dict[str, Any]) -> bool:
        if self.outcomes and str(event.get("outcome", "")) not in self.outcomes:
            return False
        if self.user_id is not None and self.user_id not in (
            _as_int(event.get("user_id")),
            _as_int(event.get("actor_id")),
        ):
            return False
        if self.ops:
            op = str(event.get("op", ""))
            if not any(op == wanted or op.startswith(wanted + "_") for wanted in self.ops):
                return False
        if self.guild_id is not None and _as_int(event.get("guild_id")) != self.guild_id:
            return False
        if self.since is not None:
            moment = event_time(event)
            if moment is None or moment < self.since:
                return False
        return True


def _as_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def filter_events(
    events: Iterable[dict[str, Any]], event_filter: EventFilter
) -> Iterator[dict[str, Any]]:
    return (event for event in events if event_filter.matches(event))


# --- rendering ------------------------------------------------------------------------------


def _cell(value: Any, width: int) -> str:
    text = "" if value is None else str(value)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.ljust(width)


def _format_time(event: dict[str, Any]) -> str:
    moment = event_time(event)
    if moment is None:
        return str(event.get("ts", ""))
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _format_detail(value: Any) -> str:
    if isinstance(value, str):
        return value if value and " " not in value else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def render_header() -> str:
    cells = [_cell(name, width) for name, width in zip(_HEADER, _WIDTHS, strict=False)]
    return " ".join([*cells, _HEADER[-1]]).rstrip()


def _named(event: dict[str, Any], names: NameSource | None) -> tuple[Any, Any]:
    """The guild and user cells: names when `names` knows them, else the ids."""
    guild, user = event.get("guild_id"), event.get("user_id")
    guild_id, user_id = _as_int(guild), _as_int(user)
    if names is None or guild_id is None:
        return guild, user
    guild_cell = names.guild_name(guild_id) or guild
    user_cell = (names.member_name(guild_id, user_id) or user) if user_id is not None else user
    return guild_cell, user_cell


def render_row(
    event: dict[str, Any], *, names: NameSource | None = None, detail_width: int = 120
) -> str:
    """One event as a fixed-width table row (local time); extra fields become key=value;
    guild and member by name when `names` knows them."""
    guild_cell, user_cell = _named(event, names)
    latency = event.get("latency_ms")
    latency_text = f"{latency:.0f}" if isinstance(latency, int | float) else ""
    cells = [
        _cell(_format_time(event), _WIDTHS[0]),
        _cell(event.get("op"), _WIDTHS[1]),
        _cell(event.get("outcome"), _WIDTHS[2]),
        _cell(guild_cell, _WIDTHS[3]),
        _cell(user_cell, _WIDTHS[4]),
        latency_text.rjust(_WIDTHS[5]),
    ]
    details = " ".join(
        f"{key}={_format_detail(value)}" for key, value in event.items() if key not in _FIXED
    )
    if len(details) > detail_width:
        details = details[: detail_width - 1] + "…"
    return " ".join([*cells, details]).rstrip()


def render_table(events: Iterable[dict[str, Any]]) -> str:
    lines = [render_header(), *(render_row(event) for event in events)]
    return "\n".join(lines)


# --- the rotating file ----------------------------------------------------------------------


def telemetry_files(log_dir: Path) -> list[Path]:
    """The current file and its rotated backups, oldest first."""
    current = log_dir / TELEMETRY_FILE
    backups: list[tuple[int, Path]] = []
    for path in log_dir.glob(TELEMETRY_FILE + ".*"):
        suffix = path.name[len(TELEMETRY_FILE) + 1 :]
        if suffix.isdigit():
            backups.append((int(suffix), path))
    ordered = [path for _, path in sorted(backups, reverse=True)]
    if current.exists():
        ordered.append(current)
    return ordered


def read_events(log_dir: Path, *, current_limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Every parsable event on disk, oldest first.

    `current_limit` stops reading the current file at that byte offset (where a follower
    started), so history and follow never print the same line twice.
    """
    current = log_dir / TELEMETRY_FILE
    for path in telemetry_files(log_dir):
        limit = current_limit if path == current else None
        try:
            with path.open("rb") as handle:
                data = handle.read() if limit is None else handle.read(limit)
        except FileNotFoundError:  # rotated away between listing and opening
            continue
        for line in data.decode("utf-8", errors="replace").splitlines():
            event = parse_line(line)
            if event is not None:
                yield event


class FileFollower:
    """`tail -F` for the telemetry file: yields complete new lines, reopening after rotation.

    Rotation renames the file and creates a new one; the follower notices that the path's inode
    changed (or the file shrank), drains what is left in the old handle and starts on the new
    file from its beginning, so no line written around a rotation is lost.
    """

    def __init__(self, path: Path, *, from_start: bool = False) -> None:
        self.path = path
        self._handle: BinaryIO | None = None
        self._inode: int | None = None
        self._partial = b""
        self.start_offset = 0
        self._open(seek_end=not from_start)

    def _open(self, *, seek_end: bool) -> None:
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            self._handle, self._inode = None, None
            return
        if seek_end:
            handle.seek(0, os.SEEK_END)
        self.start_offset = handle.tell()
        self._handle = handle
        self._inode = os.fstat(handle.fileno()).st_ino

    def _drain(self) -> list[str]:
        if self._handle is None:
            return []
        chunks = (self._partial + self._handle.read()).split(b"\n")
        self._partial = chunks.pop()  # an incomplete last line waits for its newline
        lines = (chunk.decode("utf-8", errors="replace") for chunk in chunks)
        return [line for line in lines if line.strip()]

    def _rotated(self) -> bool:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return False  # between the rename and the new file: keep the old handle for now
        if self._handle is None or stat.st_ino != self._inode:
            return True
        return stat.st_size < self._handle.tell()

    def poll(self) -> list[str]:
        """Lines written since the last poll, across a rotation if one happened."""
        lines = self._drain()
        if self._rotated():
            if self._handle is not None:
                self._handle.close()
            self._partial = b""
            self._open(seek_end=False)
            lines.extend(self._drain())
        return lines

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def follow_events(
    follower: FileFollower,
    *,
    poll_seconds: float = 0.5,
    should_stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[dict[str, Any]]:
    """Events appended to the followed file, until `should_stop()` is true.

    Open the follower before reading the history so nothing written in between is missed.
    """
    try:
        while not should_stop():
            lines = follower.poll()
            for line in lines:
                event = parse_line(line)
                if event is not None:
                    yield event
            if not lines:
                sleep(poll_seconds)
    finally:
        follower.close()
