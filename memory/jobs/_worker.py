"""The background worker: runs queued jobs and, every sweep, queues the work that is due.

Built on pgqueuer's QueueManager: a job is picked by exactly one worker (FOR UPDATE SKIP
LOCKED), its heartbeat is kept while it runs, and a job whose worker died (no heartbeat for
JOB_HEARTBEAT_TIMEOUT_SECONDS) is picked again by another. Failures are retried with
exponential backoff up to JOB_MAX_ATTEMPTS, then held as `failed` in the queue table for an
admin to see (the sweep leaves that guild-day alone for a day, then tries again).

What runs here is injected (`JobHandlers`): this package knows the queue, not the services.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass
from datetime import date, timedelta

import asyncpg
from pgqueuer import DatabaseRetryEntrypointExecutor, Job, Queries
from pgqueuer.executors import EntrypointExecutorParameters

from db.embeddings import guilds_to_embed
from db.jobs import due_days
from db.state import get_state, set_state
from memory.core.clock import Clock
from memory.core.config_fields import read_settings, setting, setting_default
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.jobs._consumer import QueueConsumer
from memory.jobs._queue import (
    CLOSE_DAY,
    DIGEST,
    EMBED,
    EPISODES,
    RETENTION,
    JobQueue,
    close_day_payload,
    embed_payload,
    guild_payload,
)

_log = logging.getLogger(__name__)

RETENTION_STATE = "retention:last_run"
# How far back the sweep looks for days to close: the history window plus today.
LOOKBACK = timedelta(days=8)
# Days queued per sweep at most (a big import is closed by `memorybot import`, not here).
SWEEP_LIMIT = 500
# How long a stopping worker lets running jobs finish before leaving them to another worker.
STOP_GRACE_SECONDS = 10.0
# Pause before a consumer that died (database gone) is started again.
RESTART_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """What the worker reads of the settings; the retry delays are for tests to shorten."""

    concurrency: int = setting("job_concurrency")
    max_attempts: int = setting("job_max_attempts")
    sweep_seconds: float = setting("job_sweep_seconds")
    heartbeat_timeout_seconds: float = setting("job_heartbeat_timeout_seconds")
    retention_interval: timedelta = timedelta(hours=setting_default("retention_interval_hours"))
    default_timezone: str = setting("default_timezone")
    retry_initial_delay: timedelta = timedelta(seconds=30)
    retry_max_delay: timedelta = timedelta(hours=1)
    listener_probe_seconds: float = 10.0

    @classmethod
    def from_settings(cls, settings: Settings) -> WorkerConfig:
        return read_settings(
            cls, settings, retention_interval=timedelta(hours=settings.retention_interval_hours)
        )


EpisodesSweep = Callable[[], Awaitable[tuple[list[int], list[tuple[int, date]]]]]


@dataclass(frozen=True, slots=True)
class JobHandlers:
    """The work itself: close one guild-day (summaries + learned facts), run retention."""

    close_day: Callable[[int, date], Awaitable[object]]
    retention: Callable[[], Awaitable[object]]
    # Semantic recall, when configured: embed a guild's new messages from a message on (None:
    # the newest; it returns where to go on from, None when done), and whether embeddings are
    # on at all (a provider is set and pgvector is there).
    embed_guild: Callable[[int, int | None], Awaitable[int | None]] | None = None
    embeddings_on: Callable[[], Awaitable[bool]] | None = None
    # Episodes: the sweep's part (cut and close; the guilds with episodes to summarise and
    # the guild-days whose digest is due), summarising a guild's episodes, one digest.
    episodes_sweep: EpisodesSweep | None = None
    summarize_episodes: Callable[[int], Awaitable[object]] | None = None
    digest: Callable[[int, date], Awaitable[object]] | None = None


@dataclass(eq=False)
class JobWorker:
    """Runs jobs from the queue until stopped; `memorybot worker`, or inside `memorybot run`."""

    pool: asyncpg.Pool
    handlers: JobHandlers
    config: WorkerConfig
    _: KW_ONLY
    clock: Clock
    telemetry: Telemetry

    def __post_init__(self) -> None:
        self.queue = JobQueue(self.pool)
        self._manager: QueueConsumer | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()
        self.jobs_done = 0
        # Times the consumer died and was started again (a lost database, a lost LISTEN).
        self.restarts = 0

    @property
    def running(self) -> bool:
        return any(not task.done() for task in self._tasks)

    def start(self) -> None:
        """Start taking jobs and sweeping on the running loop (idempotent)."""
        if self.running:
            return
        self._stopping = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._run(), name="memorybot-jobs"),
            asyncio.create_task(self._sweep_loop(), name="memorybot-job-sweep"),
        ]

    async def stop(self) -> None:
        """Stop taking jobs; running ones get STOP_GRACE_SECONDS, then are left to another
        worker (their heartbeat stops, so one picks them up)."""
        tasks, self._tasks = self._tasks, []
        self._stopping.set()
        if self._manager is not None:
            self._manager.shutdown.set()
        for task in tasks:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(task, STOP_GRACE_SECONDS)

    async def sweep(self) -> int:
        """Queue every guild-day due to close and a retention run when one is due; how many
        jobs were newly queued (those already queued or running are not queued twice)."""
        now = self.clock.now()
        days = await due_days(
            self.pool,
            now=now,
            lookback=LOOKBACK,
            default_timezone=self.config.default_timezone,
            limit=SWEEP_LIMIT,
        )
        queued = 0
        for guild_id, day in days:
            queued += await self.queue.close_day(guild_id, day)
        if await self._retention_due(now.timestamp()):
            queued += await self.queue.retention()
        if self.handlers.embeddings_on is not None and await self.handlers.embeddings_on():
            for guild_id in await guilds_to_embed(self.pool, now - LOOKBACK):
                queued += await self.queue.embed(guild_id)
        if self.handlers.episodes_sweep is not None:
            guilds, digests = await self.handlers.episodes_sweep()
            for guild_id in guilds:
                queued += await self.queue.episodes(guild_id)
            for guild_id, day in digests:
                queued += await self.queue.digest(guild_id, day)
        return queued

    # --- the queue ------------------------------------------------------------------------

    def _queue_manager(self) -> QueueConsumer:
        # A fresh driver each time: one whose LISTEN connection died keeps the dead proxy
        # (pgqueuer's release of it fails) and would fail every restart after it.
        manager = QueueConsumer(Queries.from_asyncpg_pool(self.pool))
        manager.probe_seconds = self.config.listener_probe_seconds
        retrying = self._executor_factory()
        for entrypoint, handler, limit in (
            (CLOSE_DAY, self._close_day, self.config.concurrency),
            (RETENTION, self._retention, 1),
            # One embedding job at a time across all workers: they share one provider quota.
            (EMBED, self._embed, 1),
            (EPISODES, self._episodes, self.config.concurrency),
            (DIGEST, self._digest, 1),
        ):
            manager.entrypoint(
                entrypoint, concurrency_limit=limit, on_failure="hold", executor_factory=retrying
            )(handler)
        return manager

    def _executor_factory(
        self,
    ) -> Callable[[EntrypointExecutorParameters], DatabaseRetryEntrypointExecutor]:
        config = self.config

        def build(parameters: EntrypointExecutorParameters) -> DatabaseRetryEntrypointExecutor:
            return DatabaseRetryEntrypointExecutor(
                parameters,
                # pgqueuer's max_attempts counts retries after the first run (it compares the
                # retries made so far): JOB_MAX_ATTEMPTS counts every run, the first included.
                max_attempts=config.max_attempts - 1,
                initial_delay=config.retry_initial_delay,
                max_delay=config.retry_max_delay,
                backoff_multiplier=4.0,
            )

        return build

    async def _run(self) -> None:
        """Consume until stopped; a consumer that dies (its LISTEN connection lost with the
        database) is started again once the database answers."""
        timeout = timedelta(seconds=self.config.heartbeat_timeout_seconds)
        while not self._stopping.is_set():
            self._manager = self._queue_manager()
            try:
                await self._manager.run(
                    # Stale jobs send no notification: poll often enough to re-pick them.
                    dequeue_timeout=min(timedelta(seconds=30), timeout / 2),
                    batch_size=1,
                    heartbeat_timeout=timeout,
                    shutdown_on_listener_failure=True,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.restarts += 1
                _log.warning("job queue consumer stopped (%s); restarting", describe_stop(exc))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), RESTART_SECONDS)

    async def _close_day(self, job: Job) -> None:
        guild_id, day = close_day_payload(job.payload)
        await self._traced(CLOSE_DAY, job, self.handlers.close_day(guild_id, day), guild_id, day)

    async def _embed(self, job: Job) -> None:
        guild_id, before = embed_payload(job.payload)
        embed = self.handlers.embed_guild
        if embed is None:  # this worker has no embedding provider: leave it be
            return
        after = await self._traced(EMBED, job, embed(guild_id, before), guild_id, None)
        if isinstance(after, int):  # stopped at its cap: the next job goes on from there
            await self.queue.embed(guild_id, before=after)

    async def _episodes(self, job: Job) -> None:
        guild_id = guild_payload(job.payload)
        if self.handlers.summarize_episodes is not None:
            work = self.handlers.summarize_episodes(guild_id)
            await self._traced(EPISODES, job, work, guild_id, None)

    async def _digest(self, job: Job) -> None:
        guild_id, day = close_day_payload(job.payload)
        if self.handlers.digest is not None:
            await self._traced(DIGEST, job, self.handlers.digest(guild_id, day), guild_id, day)

    async def _retention(self, job: Job) -> None:
        await self._traced(RETENTION, job, self.handlers.retention(), None, None)
        await set_state(self.pool, RETENTION_STATE, str(self.clock.now().timestamp()))

    async def _traced(
        self,
        kind: str,
        job: Job,
        work: Awaitable[object],
        guild_id: int | None,
        day: date | None,
    ) -> object:
        day_text = day.isoformat() if day else None
        attempt = job.attempts + 1
        with self.telemetry.span("job", job=kind, guild_id=guild_id, day=day_text, attempt=attempt):
            result = await work
        self.jobs_done += 1
        return result

    # --- the sweep ------------------------------------------------------------------------

    async def _sweep_loop(self) -> None:
        while True:
            try:
                queued = await self.sweep()
                if queued:
                    _log.info("queued %d background jobs", queued)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database blipped: the next sweep catches up
                _log.warning("job sweep failed: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.config.sweep_seconds)
                return

    async def _retention_due(self, now: float) -> bool:
        last = await get_state(self.pool, RETENTION_STATE)
        interval = self.config.retention_interval.total_seconds()
        return last is None or now - float(last) >= interval


def describe_stop(exc: BaseException) -> str:
    """Why the consumer stopped, named by type: the first failure, then what failed while
    cleaning up after it (pgqueuer's cleanup of a dead LISTEN connection raises again)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 3:
        chain.append(current)
        context = None if current.__suppress_context__ else current.__context__
        current = current.__cause__ or context
    named = [f"{type(e).__name__}: {e}" if str(e) else type(e).__name__ for e in chain]
    first, *then = reversed(named)
    return first + "".join(f", then {line}" for line in then)
