"""Where telemetry lines go: stdout, a size-rotated file and (optionally) OpenTelemetry spans.

`attach_sinks` wires the standard sinks to a hub at start-up and returns a handle that detaches
and closes them at shutdown. When the optional `opentelemetry` package is importable and an
exporter is configured through the standard `OTEL_*` variables, each event also becomes a span.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from datetime import datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any, TextIO

from memory.core.telemetry import Sink, Telemetry, json_line
from memory.telemetry._catalogue import TELEMETRY_FILE

_log = logging.getLogger(__name__)


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


class AttachedSinks:
    """The sinks `attach_sinks` added to a hub; `close()` detaches and closes them."""

    def __init__(self, telemetry: Telemetry, sinks: list[Sink]) -> None:
        self._telemetry = telemetry
        self.sinks = sinks

    def close(self) -> None:
        for sink in self.sinks:
            self._telemetry.remove_sink(sink)
            close = getattr(sink, "close", None)
            if close is not None:
                close()
        self.sinks = []


def attach_sinks(
    telemetry: Telemetry,
    *,
    log_dir: Path | None,
    stdout: bool,
    max_bytes: int = 10_000_000,
    backups: int = 5,
) -> AttachedSinks:
    """Attach the standard sinks (stdout, rotating file, OpenTelemetry when configured)."""
    sinks: list[Sink] = []
    if stdout:
        sinks.append(StreamSink())
    if log_dir is not None:
        sinks.append(RotatingFileSink(log_dir, max_bytes=max_bytes, backups=backups))
    otel = opentelemetry_sink_from_env()
    if otel is not None:
        sinks.append(otel)
    for sink in sinks:
        telemetry.add_sink(sink)
    return AttachedSinks(telemetry, sinks)


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
