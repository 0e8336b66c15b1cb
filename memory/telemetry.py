"""Telemetry: one JSON line per memory operation, to stdout and a size-rotated file.

Admins tail these lines (`memorybot telemetry tail`); `/memory stats` reads the in-process
counters. Emitting never raises: telemetry must not break the operation it describes.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any, TextIO

_log = logging.getLogger(__name__)

TELEMETRY_FILE = "telemetry.jsonl"

Sink = Callable[[dict[str, Any]], None]


class Telemetry:
    """Collects operation events, fans them out to sinks and keeps recent ones for stats."""

    def __init__(self, *, keep_recent: int = 5000) -> None:
        self._sinks: list[Sink] = []
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_recent)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

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


class StreamSink:
    """Writes each event as one JSON line to a text stream (stdout by default)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def __call__(self, event: dict[str, Any]) -> None:
        stream = self._stream or sys.stdout
        stream.write(json_line(event) + "\n")
        stream.flush()


class RotatingFileSink:
    """Appends JSON lines to `LOG_DIR/telemetry.jsonl`, rotated by size."""

    def __init__(self, log_dir: Path, *, max_bytes: int, backups: int) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.path = log_dir / TELEMETRY_FILE
        self._handler = RotatingFileHandler(
            self.path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8"
        )
        self._handler.setFormatter(logging.Formatter("%(message)s"))

    def __call__(self, event: dict[str, Any]) -> None:
        record = logging.LogRecord("telemetry", logging.INFO, "", 0, json_line(event), None, None)
        self._handler.emit(record)

    def close(self) -> None:
        self._handler.close()


_default = Telemetry()


def get_telemetry() -> Telemetry:
    """The process-wide telemetry hub (components also accept one explicitly for tests)."""
    return _default


def configure_telemetry(
    *, log_dir: Path | None, stdout: bool, max_bytes: int = 10_000_000, backups: int = 5
) -> Telemetry:
    """Attach the standard sinks to the process-wide hub (called once at start-up)."""
    if stdout:
        _default.add_sink(StreamSink())
    if log_dir is not None:
        _default.add_sink(RotatingFileSink(log_dir, max_bytes=max_bytes, backups=backups))
    return _default
