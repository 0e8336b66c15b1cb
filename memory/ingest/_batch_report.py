"""What one batch write tells the admin: an `ingest_batch` event per batch stored (sizes,
queue depth, attempts, how long its oldest event waited), and a warning plus a `retry` event
each time the database cannot take it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from memory.core.telemetry import Telemetry
from memory.ingest._batch import BatchResult, Operation, describe_error

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BatchReport:
    """One attempt at writing a batch: what it held, which attempt, when it started."""

    operations: Sequence[Operation]
    attempt: int
    started: float  # time.perf_counter() at the attempt's start

    def _latency_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    def stored(
        self, telemetry: Telemetry, result: BatchResult, *, queue_depth: int, wait_ms: float
    ) -> None:
        """`wait_ms`: how long the batch's oldest event waited in the queue."""
        telemetry.emit(
            "ingest_batch",
            size=len(self.operations),
            inserted=result.inserted,
            updated=result.updated,
            deleted=result.deleted,
            members=result.members,
            rejected=result.rejected,
            queue_depth=queue_depth,
            attempts=self.attempt,
            wait_ms=wait_ms,
            latency_ms=self._latency_ms(),
        )

    def failed(
        self, telemetry: Telemetry, exc: Exception, *, queue_depth: int, delay: float
    ) -> None:
        _log.warning(
            "database cannot take writes (%s); retrying %d events in %.1fs",
            describe_error(exc),
            len(self.operations),
            delay,
        )
        telemetry.emit(
            "ingest_batch",
            outcome="retry",
            size=len(self.operations),
            queue_depth=queue_depth,
            attempt=self.attempt,
            latency_ms=self._latency_ms(),
            error=describe_error(exc),
        )
