"""The settings the embedded PostgreSQL runs with, sized for the machine it shares with the bot.

PostgreSQL's own default `shared_buffers` (128 MB) suits a server that shares its machine with
anything. The embedded server is the bot's database on the bot's machine, so it takes the usual
advice instead: a quarter of the memory (of the container's limit when there is one), at most
SHARED_BUFFERS_MAX_MB. On the recall bench's 1M-message guild, whose messages table is bigger
than 128 MB, the first search of a question read its rows from outside PostgreSQL's buffers and
was two to three times slower than the next (docs/performance.md, "recall").

The settings are a block of postgresql.conf, written by `conf_with_settings` when missing or
different (the machine's memory changed); the server reads them when it next starts.
"""

from __future__ import annotations

from pathlib import Path

import psutil

SHARED_BUFFERS_SHARE = 0.25
SHARED_BUFFERS_MIN_MB = 128
SHARED_BUFFERS_MAX_MB = 2048
# cgroup v2, then v1: the memory a container may use ("max" or a huge number: no limit).
_CGROUP_LIMITS = (
    Path("/sys/fs/cgroup/memory.max"),
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
)
MARKER = "# memorybot: sized for this machine (db/embedded_settings.py); rewritten when it changes"
# What a running server's buffers are, in bytes (any server: embedded or DATABASE_URL's).
SHARED_BUFFERS_BYTES = "SELECT pg_size_bytes(current_setting('shared_buffers'))"


def machine_memory_bytes(cgroup_limits: tuple[Path, ...] = _CGROUP_LIMITS) -> int:
    """The memory this process may use: the machine's, or its container's limit if lower."""
    total = int(psutil.virtual_memory().total)
    for path in cgroup_limits:
        try:
            limit = path.read_text().strip()
        except OSError:
            continue
        if limit.isdigit() and 0 < int(limit) < total:
            return int(limit)
    return total


def shared_buffers_mb(memory_bytes: int) -> int:
    """A quarter of `memory_bytes`, within [SHARED_BUFFERS_MIN_MB, SHARED_BUFFERS_MAX_MB]."""
    share = int(memory_bytes * SHARED_BUFFERS_SHARE) // 2**20
    return max(SHARED_BUFFERS_MIN_MB, min(SHARED_BUFFERS_MAX_MB, share))


def settings_block(memory_bytes: int) -> str:
    """The lines of postgresql.conf the embedded server needs on a machine of `memory_bytes`."""
    return f"{MARKER}\nshared_buffers = '{shared_buffers_mb(memory_bytes)}MB'\n"


def conf_with_settings(conf: str, memory_bytes: int) -> str | None:
    """`conf` (postgresql.conf's text) with this machine's block in place of any earlier one;
    None when it already holds exactly that block (nothing to write, no restart)."""
    block = settings_block(memory_bytes)
    if block in conf:
        return None
    kept: list[str] = []
    in_block = False
    for line in conf.splitlines(keepends=True):
        if line.rstrip("\n") == MARKER:
            in_block = True  # the marker, its settings and the blank line that ends them
            continue
        if in_block:
            in_block = bool(line.strip())
            continue
        kept.append(line)
    text = "".join(kept).rstrip("\n")
    return f"{text}\n\n{block}\n" if text else f"{block}\n"
