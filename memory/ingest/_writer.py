"""The batched writer: chat events go into a queue and reach PostgreSQL in multi-row batches.

Why: the Discord event loop must never wait for the database. `submit*()` is synchronous and
only appends to an in-memory queue; one background task flushes it when `batch_size` items are
waiting or `flush_seconds` after the oldest one arrived. While the database is down the batch is
retried with capped exponential backoff and new events keep queueing: an outage delays writes, it
never drops them while the process lives. `close()` flushes what is left.

Full-queue policy (explicit, never silent): `queue_max` is the point of backpressure, not of
loss. Async producers (backfill, imports) use `await put(...)`, which waits for room. The gateway
path cannot wait, so `submit()` still accepts the event, logs a WARNING once per overflow episode
(and every further `queue_max` items), emits `ingest_overflow` telemetry and returns False so the
caller knows it is over the bound. Memory then grows until the database answers again.

What one batch does in the database, and which errors are worth a retry, lives in
memory/ingest/_batch.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, InitVar, dataclass

import asyncpg

from memory.core.events import EventBus, MembersSeen, MessagesChanged, MessagesStored
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry
from memory.ingest._batch import (
    BatchResult,
    DeletedMessage,
    EditedMessage,
    GuildSeen,
    MemberSeen,
    NewMessage,
    Operation,
    describe_error,
    has_late_messages,
    write_batch,
    write_isolating_bad_rows,
)
from memory.ingest._batch_report import BatchReport

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class BatchedWriter:
    """Queue chat events in memory and write them to PostgreSQL in batches, off the hot path."""

    pool: asyncpg.Pool
    _: KW_ONLY
    batch_size: int = 500
    flush_seconds: float = 0.5
    queue_max: int = 100_000
    default_timezone: str = "UTC"
    telemetry: Telemetry
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    acquire_timeout: float = 10.0
    events: InitVar[EventBus | None] = None

    def __post_init__(self, events: EventBus | None) -> None:
        self._queue: deque[tuple[float, Operation]] = deque()
        self._submitted = 0  # operations ever queued
        self._written = 0  # operations ever written (or rejected as invalid)
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._wakeup = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._flush_now = False
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._overflowing = False
        self._overflow_reported_at = 0
        self.failing_since: float | None = None
        # Told what each stored batch changed: MessagesChanged, MembersSeen, MessagesStored.
        self._events = events or EventBus()

    # ----------------------------------------------------------------- producers (sync)

    @property
    def depth(self) -> int:
        """Operations queued and not yet written."""
        return len(self._queue)

    def submit(self, message: ChatMessage) -> bool:
        """Queue a new message; never blocks. False means the queue is over its bound."""
        return self._enqueue(NewMessage(message))

    def submit_edit(self, message: ChatMessage) -> bool:
        """Queue the current state of an edited message (inserted if never stored)."""
        return self._enqueue(EditedMessage(message))

    def submit_delete(self, guild_id: int, message_id: int) -> bool:
        return self._enqueue(DeletedMessage(guild_id, message_id))

    def submit_member(self, member: Member, *, nickname_known: bool = False) -> bool:
        """Queue a directory update. `nickname_known`: it comes from the guild member itself,
        so a nickname of None means the member cleared it."""
        return self._enqueue(MemberSeen(member, nickname_known))

    def submit_guild(
        self, guild_id: int, name: str | None = None, channels: Iterable[tuple[int, str]] = ()
    ) -> bool:
        """The guild's name, and (id, name) of channels seen (for output that names them)."""
        return self._enqueue(GuildSeen(guild_id, name, tuple(channels)))

    async def put(self, message: ChatMessage) -> None:
        """Queue a message, waiting while the queue is over its bound (bulk producers)."""
        while len(self._queue) >= self.queue_max and not self._closing:
            self._room.clear()
            await self._room.wait()
        self.submit(message)

    def _enqueue(self, operation: Operation) -> bool:
        if self._closing and self._task is None:
            raise RuntimeError("BatchedWriter is closed")
        self._queue.append((time.monotonic(), operation))
        self._submitted += 1
        depth = len(self._queue)
        if depth == 1 or depth >= self.batch_size:
            self._wakeup.set()
        if depth > self.queue_max:
            self._report_overflow(depth)
            return False
        return True

    def _report_overflow(self, depth: int) -> None:
        if not self._overflowing or depth - self._overflow_reported_at >= self.queue_max:
            self._overflowing = True
            self._overflow_reported_at = depth
            _log.warning(
                "ingest queue over its bound (%d > %d): keeping everything in memory until the"
                " database catches up",
                depth,
                self.queue_max,
            )
            self.telemetry.emit(
                "ingest_overflow", outcome="overflow", queue_depth=depth, queue_max=self.queue_max
            )

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Start the flush task on the running loop (idempotent)."""
        if self._task is None or self._task.done():
            self._closing = False
            self._task = asyncio.get_running_loop().create_task(
                self._supervise(), name="memorybot-ingest-writer"
            )

    async def flush(self) -> None:
        """Return once everything queued before this call is in the database."""
        target = self._submitted
        if self._written >= target:
            return
        if self._task is None:
            raise RuntimeError("BatchedWriter.flush() before start()")
        if self._task.done() and not self._closing:
            self.start()  # never wait on a task that can no longer answer
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        self._flush_now = True
        self._wakeup.set()
        await future

    async def close(self, grace_seconds: float | None = 30.0) -> None:
        """Flush what is queued and stop; never raises. After `grace_seconds` of a database
        that still does not answer, give up and log (loudly) how many events were not written."""
        self._closing = True
        self._wakeup.set()
        self._room.set()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), grace_seconds)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            _log.error(
                "ingest writer stopped with %d events not written: the database did not"
                " answer within %.0fs of shutdown",
                len(self._queue),
                grace_seconds or 0,
            )
            self.telemetry.emit("ingest_shutdown", outcome="error", lost=len(self._queue))
        except Exception:  # the supervisor never lets one escape; belt and braces
            _log.exception("ingest writer failed while closing")
        for _, future in self._waiters:
            if not future.done():
                future.set_exception(RuntimeError("ingest writer closed before flushing"))
        self._waiters.clear()

    # ----------------------------------------------------------------- the flush loop

    async def _supervise(self) -> None:
        """Run the flush loop; if it ever dies of an unexpected error, log it and start it
        again after a pause. The queue is only popped after a write, so nothing is lost."""
        delay = self.backoff_initial
        while True:
            try:
                await self._run()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                _log.error("ingest writer failed (%s); restarting it", describe_error(exc))
                self.telemetry.emit(
                    "ingest_writer_restart", outcome="error", error=describe_error(exc)
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)

    async def _run(self) -> None:
        while True:
            if not self._queue:
                if self._closing:
                    return
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            await self._wait_for_batch()
            count = min(len(self._queue), self.batch_size)
            batch = [self._queue[i] for i in range(count)]
            await self._write_until_done(batch)
            for _ in range(count):
                self._queue.popleft()
            self._written += count
            self._after_write()

    async def _wait_for_batch(self) -> None:
        """Wait until a full batch is queued, the oldest item is `flush_seconds` old, or a
        flush/close was asked for."""
        while not (self._closing or self._flush_now or len(self._queue) >= self.batch_size):
            oldest = self._queue[0][0]
            remaining = oldest + self.flush_seconds - time.monotonic()
            if remaining <= 0:
                return
            self._wakeup.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), remaining)

    def _after_write(self) -> None:
        if not self._queue:
            self._flush_now = False
        if len(self._queue) < self.queue_max:
            self._room.set()
            if self._overflowing:
                self._overflowing = False
                _log.info("ingest queue back under its bound (%d)", len(self._queue))
        still_waiting = []
        for target, future in self._waiters:
            if self._written >= target:
                if not future.done():
                    future.set_result(None)
            else:
                still_waiting.append((target, future))
        self._waiters = still_waiting

    async def _write_until_done(self, batch: Sequence[tuple[float, Operation]]) -> None:
        """Write one batch, retrying while the database cannot take it right now."""
        delay = self.backoff_initial
        attempt = 0
        operations = [operation for _, operation in batch]
        oldest_age_ms = round((time.monotonic() - batch[0][0]) * 1000, 2)
        while True:
            attempt += 1
            started = time.perf_counter()
            try:
                result = await write_isolating_bad_rows(self._write, operations, self.telemetry)
            except Exception as exc:  # not a data error: the server's state, so wait
                await self._wait_before_retry(exc, operations, attempt, started, delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            if self.failing_since is not None:
                _log.info(
                    "database reachable again after %.1fs",
                    time.monotonic() - self.failing_since,
                )
                self.failing_since = None
            BatchReport(operations, attempt, started).stored(
                self.telemetry,
                result,
                queue_depth=len(self._queue) - len(operations),
                wait_ms=oldest_age_ms,
            )
            await self._tell(result, operations)
            return

    async def _tell(self, result: BatchResult, operations: Sequence[Operation]) -> None:
        """What a stored batch changed, to those who cache what it changed."""
        if result.updated or result.deleted or has_late_messages(operations):
            await self._events.publish(MessagesChanged())
        if result.members:
            seen = [op for op in operations if isinstance(op, MemberSeen)]
            await self._events.publish(
                MembersSeen(tuple((op.member, op.nickname_known) for op in seen))
            )
        stored = [op.message for op in operations if isinstance(op, NewMessage)]
        edited = [op.message for op in operations if isinstance(op, EditedMessage)]
        if stored or edited:
            await self._events.publish(MessagesStored(tuple(stored), tuple(edited)))

    async def _wait_before_retry(
        self,
        exc: Exception,
        operations: Sequence[Operation],
        attempt: int,
        started: float,
        delay: float,
    ) -> None:
        if self.failing_since is None:
            self.failing_since = time.monotonic()
        report = BatchReport(operations, attempt, started)
        report.failed(self.telemetry, exc, queue_depth=len(self._queue), delay=delay)
        if isinstance(exc, asyncpg.PostgresError) and not isinstance(
            exc, asyncpg.PostgresConnectionError
        ):
            # e.g. read-only after a failover: pooled sessions keep their old settings, so
            # the retry gets fresh connections.
            with contextlib.suppress(Exception):
                await self.pool.expire_connections()
        await asyncio.sleep(delay)

    async def _write(self, operations: Sequence[Operation]) -> BatchResult:
        return await write_batch(
            self.pool,
            operations,
            default_timezone=self.default_timezone,
            acquire_timeout=self.acquire_timeout,
        )
