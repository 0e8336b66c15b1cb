"""Putting background work on the PostgreSQL job queue (pgqueuer), deduplicated.

A guild-day's close has one dedupe key, so however many processes notice the same day only
one job is queued or running for it at a time; retention has a single key for the database.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import asyncpg
from pgqueuer import Queries

from db.jobs import close_day_key

_log = logging.getLogger(__name__)

CLOSE_DAY = "close_day"
RETENTION = "retention"
RETENTION_KEY = "retention"
EMBED = "embed"
EPISODES = "episodes"
DIGEST = "digest"


@dataclass(frozen=True, slots=True)
class QueuedJob:
    entrypoint: str
    status: str
    count: int


@dataclass(frozen=True, slots=True)
class HeldJob:
    """A job that failed JOB_MAX_ATTEMPTS times and is held for an admin."""

    id: int
    entrypoint: str
    what: str  # "guild 123 day 2026-11-06"
    attempts: int
    error: str | None

    def describe(self) -> str:
        error = f": {self.error}" if self.error else ""
        return f"#{self.id} {self.entrypoint} {self.what}, {self.attempts} attempts{error}"


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

    async def embed(self, guild_id: int, *, before: int | None = None) -> bool:
        """Queue embedding a guild's new messages; with `before`, continue a job that stopped
        at its cap from the message it reached. A continuation's key names where it starts:
        one key for every continuation ("more") was refused while the continuation holding it
        ran, so a chain stopped after its first link and waited for the sweep, which started
        again from the newest."""
        fields = {"guild_id": guild_id}
        key = f"embed:{guild_id}"
        if before is not None:  # a fresh job has none: `memorybot jobs` reads it "guild G"
            fields["before"] = before
            key += f":from:{before}"
        ids = await self.queries.enqueue(
            EMBED,
            json.dumps(fields).encode(),
            execute_after=timedelta(seconds=1) if before is not None else None,
            dedupe_key=key,
            on_conflict="skip",
        )
        return ids[0] is not None

    async def episodes(self, guild_id: int) -> bool:
        """Queue summarising a guild's closed episodes; False when already queued/running."""
        payload = json.dumps({"guild_id": guild_id}).encode()
        ids = await self.queries.enqueue(
            EPISODES, payload, dedupe_key=f"episodes:{guild_id}", on_conflict="skip"
        )
        return ids[0] is not None

    async def digest(self, guild_id: int, day: date) -> bool:
        """Queue the guild-day's digest (its row in episode_digests makes it once for good)."""
        payload = json.dumps({"guild_id": guild_id, "day": day.isoformat()}).encode()
        ids = await self.queries.enqueue(
            DIGEST, payload, dedupe_key=f"digest:{guild_id}:{day.isoformat()}", on_conflict="skip"
        )
        return ids[0] is not None

    async def held(self, limit: int = 50) -> list[HeldJob]:
        """Jobs held as failed, newest first, with the last error each logged."""
        jobs = await self.queries.list_failed_jobs(limit=limit)
        errors = await self._last_errors([int(job.id) for job in jobs])
        return [
            HeldJob(
                int(job.id),
                str(job.entrypoint),
                describe_payload(job.payload),
                job.attempts + 1,  # pgqueuer counts the retries; the first run is one more
                errors.get(int(job.id)),
            )
            for job in jobs
        ]

    async def retry_held(self) -> int:
        """Queue every held job again now (attempts from zero); how many."""
        ids = [job.id for job in await self.queries.list_failed_jobs(limit=10_000)]
        if ids:
            await self.queries.requeue_jobs(ids)
        return len(ids)

    async def _last_errors(self, ids: list[int]) -> dict[int, str]:
        log = self.queries.qbe.qualified.queue_table_log  # pgqueuer's name for it (PGQUEUER_*)
        rows = await self.queries.driver.fetch(
            f"SELECT DISTINCT ON (job_id) job_id, traceback FROM {log}"
            " WHERE job_id = ANY($1::bigint[]) AND traceback IS NOT NULL"
            " ORDER BY job_id, created DESC",
            ids,
        )
        return {int(str(row["job_id"])): _error_line(row["traceback"]) for row in rows}

    async def sizes(self) -> list[QueuedJob]:
        """Jobs waiting or running, per entrypoint and status (for admins and tests)."""
        return [
            QueuedJob(str(row.entrypoint), str(row.status), int(row.count))
            for row in await self.queries.queue_size()
        ]


def describe_payload(payload: bytes | None) -> str:
    if not payload:
        return ""
    try:
        data = json.loads(payload)
    except ValueError:
        return "(unreadable payload)"
    return " ".join(f"{key.removesuffix('_id')} {value}" for key, value in data.items())


def embed_payload(payload: bytes | None) -> tuple[int, int | None]:
    """The guild an embed job is for, and the message it goes on from (None: the newest)."""
    data = _payload(payload)
    # .get: a fresh job has none, as had one queued before the cursor was carried.
    before = data.get("before")
    return int(data["guild_id"]), None if before is None else int(before)


def guild_payload(payload: bytes | None) -> int:
    return int(_payload(payload)["guild_id"])


def _payload(payload: bytes | None, job: str = "job") -> dict[str, Any]:
    if payload is None:
        raise ValueError(f"{job} without a payload")
    return dict(json.loads(payload))


def close_day_payload(payload: bytes | None) -> tuple[int, date]:
    """The guild and day a close_day job is for; ValueError on a malformed payload."""
    data = _payload(payload, "close_day job")
    return int(data["guild_id"]), date.fromisoformat(data["day"])


def _error_line(traceback: object) -> str:
    """The exception line of a logged traceback record (jsonb: a dict or its text)."""
    data = json.loads(traceback) if isinstance(traceback, str) else traceback
    if isinstance(data, dict):
        kind = data.get("exception_type") or ""
        message = data.get("exception_message") or ""
        return f"{kind}: {message}".strip(": ")[:200]
    return str(data)[:200]
