"""The bot's heartbeat file: proof for `memorybot health` that the gateway connection lives.

The running bot rewrites `LOG_DIR/heartbeat` every minute while it is connected to Discord
and removes it when it stops; `memorybot health` (the container's HEALTHCHECK) reads its age.
A file that stopped changing means a bot that is stuck or cut off from Discord.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

HEARTBEAT_FILE = "heartbeat"
INTERVAL_SECONDS = 60.0
# Three missed beats: long enough for a gateway reconnect, short enough to notice a dead bot.
MAX_AGE_SECONDS = 3 * INTERVAL_SECONDS


def heartbeat_path(log_dir: Path) -> Path:
    return Path(log_dir) / HEARTBEAT_FILE


def write_heartbeat(log_dir: Path, **info: object) -> None:
    """Replace the file atomically, so a reader never sees half a beat."""
    path = heartbeat_path(log_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{HEARTBEAT_FILE}.{os.getpid()}")
    temporary.write_text(json.dumps({"ts": time.time(), "pid": os.getpid(), **info}) + "\n")
    os.replace(temporary, path)


def heartbeat_age(log_dir: Path, *, now: float | None = None) -> float | None:
    """Seconds since the last beat, or None when no bot is beating here."""
    try:
        modified = heartbeat_path(log_dir).stat().st_mtime
    except FileNotFoundError:
        return None
    return max(0.0, (time.time() if now is None else now) - modified)


def remove_heartbeat(log_dir: Path) -> None:
    heartbeat_path(log_dir).unlink(missing_ok=True)
