"""Background work on a PostgreSQL job queue (pgqueuer): closing days, retention.

Jobs are durable, run once, retry with backoff and are deduplicated per guild-day; any number
of workers (`memorybot worker`, and `memorybot run` unless RUN_WORKER=false) share the queue.
"""

from __future__ import annotations

from memory.jobs._queue import (
    CLOSE_DAY,
    DIGEST,
    EMBED,
    EPISODES,
    RETENTION,
    HeldJob,
    JobQueue,
    QueuedJob,
)
from memory.jobs._worker import JobHandlers, JobWorker, WorkerConfig

__all__ = [
    "CLOSE_DAY",
    "DIGEST",
    "EMBED",
    "EPISODES",
    "RETENTION",
    "HeldJob",
    "JobHandlers",
    "JobQueue",
    "JobWorker",
    "QueuedJob",
    "WorkerConfig",
]
