"""The telemetry hub: one event per memory operation, fanned out to sinks.

Every service is handed the hub it reports to (no process-wide default), so tests can assert
on the events they caused and the front door decides where lines go (`memory.telemetry`
attaches the stdout, file and OpenTelemetry sinks). Emitting never raises: telemetry must not
break the operation it describes.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

_log = logging.getLogger(__name__)

Sink = Callable[[dict[str, Any]], None]


class Telemetry:
    """Collects operation events, fans them out to sinks and keeps recent ones for stats."""

    def __init__(self, *, keep_recent: int = 5000) -> None:
        self._sinks: list[Sink] = []
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_recent)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._bound: dict[str, Any] = {}

    def bind(self, **fields: Any) -> None:
        """Fields every later event carries (e.g. the process's shards), unless it sets them."""
        self._bound.update({key: value for key, value in fields.items() if value is not None})

    def add_sink(self, sink: Sink) -> None:
        self._sinks.append(sink)

    def remove_sink(self, sink: Sink) -> None:
        if sink in self._sinks:
            self._sinks.remove(sink)

    def emit(self, op: str, *, outcome: str = "ok", **fields: Any) -> dict[str, Any]:
        """Record one operation. `fields` must be JSON-friendly; None values are dropped."""
        event: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "op": op,
            "outcome": outcome,
            **self._bound,
        }
        event.update({key: value for key, value in fields.items() if value is not None})
        with self._lock:
            self._recent.append(event)
            self._counts[f"{op}:{outcome}"] += 1
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:  # a broken sink must not break the caller
                _log.exception("telemetry sink failed")
        return event

    @contextmanager
    def span(self, op: str, **fields: Any) -> Iterator[dict[str, Any]]:
        """Time a block and emit one event; the block may add fields to the yielded dict."""
        extra: dict[str, Any] = {}
        started = time.perf_counter()
        try:
            yield extra
        except BaseException as exc:
            latency_ms = round((time.perf_counter() - started) * 1000, 2)
            self.emit(
                op,
                outcome="error",
                latency_ms=latency_ms,
                error=f"{type(exc).__name__}: {exc}"[:500],
                **{**fields, **extra},
            )
            raise
        latency_ms = round((time.perf_counter() - started) * 1000, 2)
        outcome = extra.pop("outcome", "ok")
        self.emit(op, outcome=outcome, latency_ms=latency_ms, **{**fields, **extra})

    def recent(self, op: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            events = list(self._recent)
        return [event for event in events if op is None or event["op"] == op]

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


def json_line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, default=str, separators=(",", ":"))
