"""Putting background work on the PostgreSQL job queue (pgqueuer), deduplicated.

A guild-day's close has one dedupe key, so however many processes notice the same day only
one job is queued or running for it at a time; retention has a single key for the database.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, timedelta

import asyncpg
from pgqueuer import Queries

from db.jobs import close_day_key

_log = logging.getLogger(__name__)

CLOSE_DAY = "close_day"
RETENTION = "retention"
RETENTION_KEY = "retention"
EMBED = "embed"


@dataclass(frozen=True, slots=True)
class QueuedJob:
    entrypoint: str
    status: str
    count: int


class JobQueue:
    """Enqueues jobs; any worker on the database runs them (`memorybot worker`, or `run`)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.queries = Queries.from_asyncpg_pool(pool)

    async def close_day(self, guild_id: int, day: date) -> bool:
        """Queue the close of one guild-day; False when it is already queued or running."""
        payload = json.dumps({"guild_id": guild_id, "day": day.isoformat()}).encode()
        ids = await self.queries.enqueue(
            CLOSE_DAY, payload, dedupe_key=close_day_key(guild_id, day), on_conflict="skip"
        )
        return ids[0] is not None

    async def retention(self) -> bool:
        """Queue one retention run; False when one is already queued or running."""
        ids = await self.queries.enqueue(
            RETENTION, None, dedupe_key=RETENTION_KEY, on_conflict="skip"
        )
        return ids[0] is not None

    async def embed(self, guild_id: int, *, more: bool = False) -> bool:
        """Queue embedding a guild's new messages; `more` continues a job that stopped at its
        cap (its own key, so it is not refused while that job is still running)."""
        key = f"embed:{guild_id}" + (":more" if more else "")
        payload = json.dumps({"guild_id": guild_id}).encode()
        ids = await self.queries.enqueue(
            EMBED,
            payload,
            execute_after=timedelta(seconds=1) if more else None,
            dedupe_key=key,
            on_conflict="skip",
        )
        return ids[0] is not None

    async def sizes(self) -> list[QueuedJob]:
        """Jobs waiting or running, per entrypoint and status (for admins and tests)."""
        return [
            QueuedJob(str(row.entrypoint), str(row.status), int(row.count))
            for row in await self.queries.queue_size()
        ]


def guild_payload(payload: bytes | None) -> int:
    if payload is None:
        raise ValueError("job without a payload")
    return int(json.loads(payload)["guild_id"])


def close_day_payload(payload: bytes | None) -> tuple[int, date]:
    """The guild and day a close_day job is for; ValueError on a malformed payload."""
    if payload is None:
        raise ValueError("close_day job without a payload")
    data = json.loads(payload)
    return int(data["guild_id"]), date.fromisoformat(data["day"])
