"""Retention: raw messages older than RETENTION_DAYS are deleted; facts and summaries stay.

`run_retention` deletes in bounded batches and reports counts (log line + one telemetry event
"retention"). `RetentionJob` runs it daily inside the bot process.

The memory hierarchy still reads the messages of today and days 2-7, and it treats a day whose
messages changed as needing a new summary. Deleting those messages would therefore replace good
summaries with empty ones, so retention never reaches into the last MIN_RETENTION_DAYS days,
whatever RETENTION_DAYS says (a shorter setting is clamped, with a warning).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime, timedelta

import asyncpg

from db.retention import count_messages_before, delete_messages_before
from memory.core.clock import Clock
from memory.core.telemetry import Telemetry
from memory.core.text import plural

_log = logging.getLogger(__name__)

# Today + days 2-7 of the hierarchy, plus one day of slack for guild time zones.
MIN_RETENTION_DAYS = 9
DEFAULT_BATCH_SIZE = 5000


@dataclass(frozen=True)
class RetentionReport:
    """What one run did (or, for a dry run, would do)."""

    cutoff: datetime
    retention_days: int
    deleted: int
    by_guild: dict[int, int] = field(default_factory=dict)
    batches: int = 0
    dry_run: bool = False
    latency_ms: float = 0.0

    def describe(self, names: dict[int, str] | None = None) -> str:
        """One line; guilds by name where `names` has them."""
        names = names or {}
        older = f"older than {self.cutoff.isoformat()} ({self.retention_days} days)"
        if not self.deleted:
            verb = "would delete" if self.dry_run else "deleted"
            return f"retention: no messages {older}, so nothing {verb}; facts and summaries kept"
        guilds = ", ".join(
            f"{names.get(g) or f'guild {g}'}: {n}" for g, n in sorted(self.by_guild.items())
        )
        detail = f" ({guilds})" if guilds else ""
        messages = plural(self.deleted, "message")
        if self.dry_run:
            return f"retention: would delete {messages} {older}{detail}; facts and summaries kept"
        return (
            f"retention: deleted {messages} {older}{detail} in "
            f"{plural(self.batches, 'batch', 'batches')}; facts and summaries kept"
        )


def effective_days(retention_days: int) -> int:
    """RETENTION_DAYS, clamped so the hierarchy's own window is never deleted."""
    if retention_days < MIN_RETENTION_DAYS:
        _log.warning(
            "RETENTION_DAYS=%d is shorter than the %d days the summaries still read; keeping %d",
            retention_days,
            MIN_RETENTION_DAYS,
            MIN_RETENTION_DAYS,
        )
        return MIN_RETENTION_DAYS
    return retention_days


async def run_retention(
    pool: asyncpg.Pool,
    *,
    retention_days: int,
    clock: Clock,
    telemetry: Telemetry,
    batch_size: int = DEFAULT_BATCH_SIZE,
    dry_run: bool = False,
    log: bool = True,
) -> RetentionReport:
    """Delete messages older than the retention period, `batch_size` rows per statement;
    `log=False` when the caller prints the report itself (the CLI: not twice on a terminal)."""
    days = effective_days(retention_days)
    cutoff = clock.now() - timedelta(days=days)
    started = time.perf_counter()
    by_guild: Counter[int] = Counter()
    batches = 0
    try:
        if dry_run:
            by_guild.update(await count_messages_before(pool, cutoff))
        else:
            while True:
                deleted = await delete_messages_before(pool, cutoff, limit=batch_size)
                batches += 1
                by_guild.update(deleted)
                if sum(deleted.values()) < batch_size:
                    break
                await asyncio.sleep(0)  # let other work use the pool between batches
    except Exception as exc:
        telemetry.emit(
            "retention",
            outcome="error",
            count=sum(by_guild.values()),
            batches=batches,
            cutoff=cutoff.isoformat(),
            error=f"{type(exc).__name__}: {exc}"[:500],
        )
        raise
    report = RetentionReport(
        cutoff=cutoff,
        retention_days=days,
        deleted=sum(by_guild.values()),
        by_guild=dict(by_guild),
        batches=batches,
        dry_run=dry_run,
        latency_ms=round((time.perf_counter() - started) * 1000, 2),
    )
    if log:
        _log.info("%s", report.describe())
    telemetry.emit(
        "retention",
        outcome="skipped" if dry_run else "ok",
        count=report.deleted,
        batches=batches,
        cutoff=cutoff.isoformat(),
        retention_days=days,
        guilds=len(by_guild),
        latency_ms=report.latency_ms,
    )
    return report


@dataclass(eq=False)
class RetentionJob:
    """Runs retention: `run()` once (the CLI, and the job queue's retention job, which a worker
    queues every RETENTION_INTERVAL_HOURS), or `start()` a loop in this process (shortly after
    start, then every `interval`) where no job queue is used. A failed run in the loop is
    logged and reported; the loop keeps its schedule."""

    pool: asyncpg.Pool
    _: KW_ONLY
    retention_days: int
    clock: Clock
    telemetry: Telemetry
    batch_size: int = DEFAULT_BATCH_SIZE
    interval: timedelta = timedelta(days=1)
    first_delay: timedelta = timedelta(minutes=5)

    def __post_init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self.last_report: RetentionReport | None = None
        self.runs = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Schedule the loop on the running event loop (idempotent)."""
        if self.running:
            return
        self._task = asyncio.create_task(self._loop(), name="memorybot-retention")

    async def stop(self) -> None:
        """Cancel the loop and wait for it; a batch in flight is abandoned (it is atomic)."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def run(
        self, *, retention_days: int | None = None, dry_run: bool = False
    ) -> RetentionReport:
        """One run now (`memorybot retention run`); errors propagate to the caller."""
        return await run_retention(
            self.pool,
            retention_days=self.retention_days if retention_days is None else retention_days,
            clock=self.clock,
            telemetry=self.telemetry,
            batch_size=self.batch_size,
            dry_run=dry_run,
            log=False,
        )

    async def run_once(self) -> RetentionReport | None:
        try:
            report = await run_retention(
                self.pool,
                retention_days=self.retention_days,
                clock=self.clock,
                telemetry=self.telemetry,
                batch_size=self.batch_size,
            )
        except Exception:
            _log.exception("retention run failed; next try in %s", self.interval)
            return None
        finally:
            self.runs += 1
        self.last_report = report
        return report

    async def _loop(self) -> None:
        await asyncio.sleep(self.first_delay.total_seconds())
        while True:
            await self.run_once()
            await asyncio.sleep(self.interval.total_seconds())
