"""Which Discord shards this process owns: SHARD_COUNT and SHARD_IDS, parsed once.

Discord splits guilds across gateway connections by `(guild_id >> 22) % shard_count`. Several
processes on one database split the guilds by each owning some shard ids of the same count.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """`count` None means "ask Discord for its recommended count" (SHARD_COUNT=auto); `ids`
    None means every shard of the count (one process owns them all)."""

    count: int | None = 1
    ids: tuple[int, ...] | None = None

    def describe(self) -> str:
        """`0-1/4`, `all/auto`: for log lines and telemetry."""
        total = "auto" if self.count is None else str(self.count)
        return f"{'all' if self.ids is None else format_ids(self.ids)}/{total}"


def parse_shard_count(text: str) -> int | None:
    """`auto` (None) or a positive integer."""
    cleaned = text.strip().lower()
    if cleaned == "auto":
        return None
    try:
        count = int(cleaned)
    except ValueError:
        raise ValueError(f"SHARD_COUNT: expected a number or 'auto', got {text!r}") from None
    if count < 1:
        raise ValueError(f"SHARD_COUNT: must be at least 1, got {count}")
    return count


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """`0,1`, `0-3` or a mix (`0-1,4`), sorted without repeats."""
    ids: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise ValueError(f"SHARD_IDS: expected e.g. '0,1' or '0-3', got {text!r}") from None
        if low < 0 or high < low:
            raise ValueError(f"SHARD_IDS: bad range {part!r}")
        ids.update(range(low, high + 1))
    if not ids:
        raise ValueError("SHARD_IDS: no shard id given")
    return tuple(sorted(ids))


def shard_plan(count_text: str, ids_text: str | None) -> ShardPlan:
    """Both settings together: ids need a fixed count and must be below it."""
    count = parse_shard_count(count_text)
    if ids_text is None or not ids_text.strip():
        return ShardPlan(count=count)
    ids = parse_shard_ids(ids_text)
    if count is None:
        raise ValueError("SHARD_IDS: needs a fixed SHARD_COUNT (not 'auto')")
    if ids[-1] >= count:
        raise ValueError(f"SHARD_IDS: shard {ids[-1]} does not exist with SHARD_COUNT={count}")
    return ShardPlan(count=count, ids=ids)


def shard_of(guild_id: int, count: int) -> int:
    """The shard Discord delivers a guild's events on."""
    return (guild_id >> 22) % count


def format_ids(ids: tuple[int, ...]) -> str:
    """(0, 1, 2, 5) -> "0-2,5"."""
    parts: list[str] = []
    start = previous = ids[0]
    for shard in (*ids[1:], None):
        if shard is not None and shard == previous + 1:
            previous = shard
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if shard is not None:
            start = previous = shard
    return ",".join(parts)
