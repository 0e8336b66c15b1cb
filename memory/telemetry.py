"""Telemetry: one JSON line per memory operation, to stdout and a size-rotated file.

Admins tail these lines (`memorybot telemetry tail`); `/memory stats` reads the in-process
counters. Emitting never raises: telemetry must not break the operation it describes.

Every line carries `ts`, `op` and `outcome`; the other fields depend on the operation and are
listed in `FIELDS` (docs/operations.md renders the same table). When the optional
`opentelemetry` package is importable and an exporter is configured through the standard
`OTEL_*` variables, each event also becomes a span (see `opentelemetry_sink_from_env`).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any, TextIO

_log = logging.getLogger(__name__)

TELEMETRY_FILE = "telemetry.jsonl"

Sink = Callable[[dict[str, Any]], None]

# The documented fields of a telemetry line. Producers may add operation-specific extras (listed
# with each op in docs/operations.md); these names keep one meaning everywhere.
FIELDS: dict[str, str] = {
    "ts": "UTC time the event was emitted (end of the operation), ISO 8601 with milliseconds",
    "op": "operation name, one of OPS",
    "outcome": "ok, error, or an op-specific result (fallback, retry, degraded, refused, ...)",
    "guild_id": "Discord guild (server) id the operation was for",
    "user_id": "member the operation was about (subject of a remember, a context, a purge)",
    "actor_id": "member who asked for it, when that is someone else",
    "channel_id": "channel the operation was for",
    "latency_ms": "wall time of the operation in milliseconds",
    "error": "exception type and message, truncated",
    "provider": "LLM provider that was called: gemini, openai, offline",
    "model": "model name used by the provider",
    "purpose": "why the LLM was called: daily_summary, merge, remember, route, reply, ...",
    "input_tokens": "prompt tokens reported by the provider",
    "output_tokens": "completion tokens reported by the provider",
    "retries": "retries before the call succeeded or gave up",
    "fallback_to": "llm_call that failed over: the provider tried next",
    "fallback_from": "llm_call answered by a fallback: the provider that failed first",
    "cache": "cache event: which cache (today, history, context, ...)",
    "hit": "cache event: true for a hit, false for a miss",
    "shared": "cache miss that joined a computation already in flight (single flight)",
    "reason": "why it happened: a fallback's cause, a summary's (missing, stale, changed)",
    "served": "fallback: what was served (last_known_good, facts_and_summaries, facts, none)",
    "day": "calendar day (guild time zone) a daily summary is for, YYYY-MM-DD",
    "end_day": "last day a historical summary covers, YYYY-MM-DD",
    "count": "rows handled by retention and privacy operations",
    "size": "ingest_batch: events in the batch",
    "queue_depth": "ingest: events still waiting in the queue",
    "command": "admin: the /memory subcommand; command: the member command",
}

# Every operation memorybot reports; `op` of every line is one of these.
OPS: dict[str, str] = {
    "ingest_batch": "a batch of message events written (size, inserted, queue_depth)",
    "ingest_overflow": "the ingest queue went past INGEST_QUEUE_MAX (kept in memory)",
    "ingest_reject": "one event the database refused (not stored)",
    "ingest_shutdown": "events still queued when the writer was closed",
    "backfill": "channel history fetched on start-up (messages)",
    "import": "one DiscordChatExporter file imported (messages, new, skipped)",
    "daily_summary": "one guild-day summarised (day, reason, messages, members)",
    "historical_summary": "one member's days 2-7 rolled up (end_day, days)",
    "merge": "facts + today + history merged into one context",
    "cache": "a cache lookup (cache, hit, shared)",
    "fallback": "memory served from a fallback (reason, served)",
    "llm_call": "one LLM request (provider, model, purpose, tokens, retries, latency)",
    "route": "a message classified by the intent router",
    "command": "a member command handled (or rate limited)",
    "remember": "a fact merged into a member's blob",
    "forget": "a statement pruned from a member's blob",
    "undo": "a member's last fact change reverted",
    "facts_conflict": "a concurrent fact write won the race; the merge is redone",
    "reply": "the bot answered a message (members, memories, prompt_tokens)",
    "window_fold": "a channel's conversation window folded into its running summary",
    "window_decay": "a quiet channel's window summarised (soft) or cleared (hard)",
    "retention": "old raw messages deleted (count, batches, cutoff)",
    "privacy_export": "everything held about a member exported (count = rows)",
    "privacy_purge": "everything held about a member deleted (count = rows, stale_days)",
    "admin": "a /memory admin command (command); outcome refused for non-admins",
}


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
# Sinks attached by configure_telemetry, so a second call replaces rather than duplicates them.
_configured: list[Sink] = []


def get_telemetry() -> Telemetry:
    """The process-wide telemetry hub (components also accept one explicitly for tests)."""
    return _default


def configure_telemetry(
    *, log_dir: Path | None, stdout: bool, max_bytes: int = 10_000_000, backups: int = 5
) -> Telemetry:
    """Attach the standard sinks to the process-wide hub (called at start-up).

    Calling it again replaces the sinks of the previous call instead of adding duplicates.
    """
    for sink in _configured:
        _default.remove_sink(sink)
        close = getattr(sink, "close", None)
        if close is not None:
            close()
    _configured.clear()
    if stdout:
        _configured.append(StreamSink())
    if log_dir is not None:
        _configured.append(RotatingFileSink(log_dir, max_bytes=max_bytes, backups=backups))
    otel = opentelemetry_sink_from_env()
    if otel is not None:
        _configured.append(otel)
    for sink in _configured:
        _default.add_sink(sink)
    return _default


# --- optional OpenTelemetry spans ------------------------------------------------------------

_OTEL_EXPORTER_VARS = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
)


def otel_exporter_configured(environ: Mapping[str, str] | None = None) -> bool:
    """True when the standard OTEL_* variables ask for trace export."""
    env = os.environ if environ is None else environ
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    return any(env.get(name, "").strip() for name in _OTEL_EXPORTER_VARS)


def _span_attribute(value: Any) -> str | bool | int | float:
    if isinstance(value, str | bool | int | float):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class OpenTelemetrySink:
    """Turns each telemetry event into a finished span named after its `op`.

    The span ends at `ts` and starts `latency_ms` earlier; every other field becomes an
    attribute, and an `error` outcome sets the span status to ERROR.
    """

    def __init__(self, trace_module: Any) -> None:
        self._trace = trace_module
        self._tracer = trace_module.get_tracer("memorybot")

    def __call__(self, event: dict[str, Any]) -> None:
        end = datetime.fromisoformat(event["ts"])
        end_ns = int(end.timestamp() * 1_000_000_000)
        latency_ms = event.get("latency_ms")
        start_ns = end_ns
        if isinstance(latency_ms, int | float) and latency_ms > 0:
            start_ns = end_ns - int(latency_ms * 1_000_000)
        attributes = {
            f"memorybot.{key}": _span_attribute(value)
            for key, value in event.items()
            if key not in ("ts", "op")
        }
        span = self._tracer.start_span(event["op"], start_time=start_ns, attributes=attributes)
        if event.get("outcome") == "error":
            status = self._trace.Status(self._trace.StatusCode.ERROR, str(event.get("error", "")))
            span.set_status(status)
        span.end(end_time=end_ns)


def _install_sdk_provider(trace_module: Any, environ: Mapping[str, str]) -> None:
    """Give the API a real provider when nothing else (e.g. opentelemetry-instrument) did."""
    if not isinstance(trace_module.get_tracer_provider(), trace_module.ProxyTracerProvider):
        return
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        _log.warning("OTEL exporter configured but opentelemetry-sdk is not installed")
        return
    exporter: Any
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "console":
        exporter = ConsoleSpanExporter()
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            _log.warning("OTLP exporter configured but opentelemetry-exporter-otlp is missing")
            return
        exporter = OTLPSpanExporter()
    resource = Resource.create({"service.name": environ.get("OTEL_SERVICE_NAME", "memorybot")})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace_module.set_tracer_provider(provider)


def opentelemetry_sink_from_env(environ: Mapping[str, str] | None = None) -> Sink | None:
    """An OpenTelemetrySink when `opentelemetry` is importable and an exporter is configured.

    memorybot does not depend on OpenTelemetry: without the package, or without any OTEL_*
    exporter variable, this returns None and nothing changes.
    """
    env = os.environ if environ is None else environ
    if not otel_exporter_configured(env):
        return None
    try:
        from opentelemetry import trace
    except ImportError:
        _log.info("OTEL_* set but the opentelemetry package is not installed; no spans")
        return None
    try:
        _install_sdk_provider(trace, env)
        return OpenTelemetrySink(trace)
    except Exception:  # a broken exporter set-up must not stop the bot
        _log.exception("could not set up OpenTelemetry spans")
        return None
