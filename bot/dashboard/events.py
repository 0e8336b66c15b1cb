"""Telemetry events for pages: the last errors of the overview and rows of the live tail.

Only the end of the current telemetry file is read for the overview (its size is bounded by
TELEMETRY_FILE_MAX_BYTES, but a page must not read megabytes on every view).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from memory.ports import TELEMETRY_FILE

TAIL_BYTES = 256 * 1024
# Fields shown in their own column; the rest go in "details".
COLUMNS = ("ts", "op", "outcome", "guild_id", "user_id", "latency_ms")


def recent_events(log_dir: Path, *, tail_bytes: int = TAIL_BYTES) -> list[dict[str, Any]]:
    path = log_dir / TELEMETRY_FILE
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - tail_bytes))
            data = handle.read()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    if size > tail_bytes:
        lines = lines[1:]  # the first one is cut
    return [event for line in lines if (event := parse(line.decode("utf-8", "replace")))]


def parse(line: str) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and "op" in event else None


def last_errors(log_dir: Path, *, limit: int) -> list[dict[str, Any]]:
    errors = [event for event in recent_events(log_dir) if event.get("outcome") == "error"]
    return [row(event, None, {}, {}) for event in errors[-limit:]][::-1]


def row(
    event: dict[str, Any],
    timezone: str | None,
    guild_names: dict[int, str],
    member_names: dict[tuple[int, int], str],
) -> dict[str, Any]:
    """One event as the page shows it: time (the guild's zone), names, the rest as details."""
    guild_id, user_id = _id(event.get("guild_id")), _id(event.get("user_id"))
    when = str(event.get("ts", ""))
    try:
        moment = datetime.fromisoformat(when.replace("Z", "+00:00"))
        zone = ZoneInfo(timezone) if timezone else None
        when = (
            moment.astimezone(zone).strftime("%m-%d %H:%M:%S")
            if zone
            else moment.strftime("%m-%d %H:%M:%S UTC")
        )
    except (ValueError, KeyError):
        pass
    guild = guild_names.get(guild_id, str(guild_id)) if guild_id is not None else ""
    member = ""
    if user_id is not None:
        member = member_names.get((guild_id or 0, user_id), f"user {user_id}")
    details = " ".join(
        f"{key}={value}" for key, value in event.items() if key not in COLUMNS and value is not None
    )
    return {
        "time": when,
        "op": str(event.get("op", "")),
        "outcome": str(event.get("outcome", "")),
        "guild": guild,
        "member": member,
        "ms": event.get("latency_ms", ""),
        "details": details[:300],
    }


def _id(value: Any) -> int | None:
    text = str(value) if value is not None else ""
    return int(text) if text.isdigit() else None
