"""Telemetry lines: valid JSON with the documented fields, in stdout and the rotating file."""

from __future__ import annotations

import io
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from memory.core.telemetry import Telemetry
from memory.telemetry import (
    FIELDS,
    OPS,
    TELEMETRY_FILE,
    RotatingFileSink,
    StreamSink,
    attach_sinks,
)
from memory.telemetry._sinks import (
    OpenTelemetrySink,
    opentelemetry_sink_from_env,
    otel_exporter_configured,
)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_line_is_json_with_the_documented_fields(
    tmp_path: Path, telemetry: Telemetry
) -> None:
    stream = io.StringIO()
    file_sink = RotatingFileSink(tmp_path, max_bytes=1_000_000, backups=2)
    telemetry.add_sink(StreamSink(stream))
    telemetry.add_sink(file_sink)
    telemetry.emit(
        "llm_call",
        guild_id=10,
        provider="offline",
        model="extractive",
        purpose="merge",
        input_tokens=120,
        output_tokens=40,
        latency_ms=3.5,
        retries=0,
        note='quotes " and \n newlines and ünïcode',
    )
    with pytest.raises(RuntimeError), telemetry.span("remember", guild_id=10, user_id=7):
        raise RuntimeError("boom")
    file_sink.close()

    from_stdout = [json.loads(line) for line in stream.getvalue().splitlines()]
    from_file = _lines(tmp_path / TELEMETRY_FILE)
    assert from_stdout == from_file
    assert len(from_file) == 2
    for event in from_file:
        assert {"ts", "op", "outcome"} <= event.keys()
        assert event["op"] in OPS
    llm, remember = from_file
    assert llm["note"] == 'quotes " and \n newlines and ünïcode'
    assert {k for k in llm if k != "note"} <= FIELDS.keys()
    assert remember["outcome"] == "error" and remember["error"] == "RuntimeError: boom"
    assert remember.keys() <= FIELDS.keys()


def test_none_fields_are_dropped_and_counts_kept(telemetry: Telemetry) -> None:
    telemetry.emit("cache", outcome="hit", cache="today", guild_id=None)
    telemetry.emit("cache", outcome="miss", cache="today")
    telemetry.emit("cache", outcome="hit", cache="context")
    assert "guild_id" not in telemetry.recent("cache")[0]
    assert telemetry.counts() == {"cache:hit": 2, "cache:miss": 1}


def test_file_rotates_by_size_and_keeps_backups(tmp_path: Path, telemetry: Telemetry) -> None:
    sink = RotatingFileSink(tmp_path, max_bytes=10_000, backups=2)
    telemetry.add_sink(sink)
    for index in range(600):
        telemetry.emit("ingest", guild_id=1, count=index, queue_depth=0)
    sink.close()
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [TELEMETRY_FILE, TELEMETRY_FILE + ".1", TELEMETRY_FILE + ".2"]
    for path in tmp_path.iterdir():
        assert path.stat().st_size <= 10_000
        assert all(event["op"] == "ingest" for event in _lines(path))


def test_a_broken_sink_does_not_break_the_operation(telemetry: Telemetry) -> None:
    def broken(event: dict[str, Any]) -> None:
        raise OSError("disk full")

    seen: list[dict[str, Any]] = []
    telemetry.add_sink(broken)
    telemetry.add_sink(seen.append)
    telemetry.emit("reply", guild_id=1)
    assert [event["op"] for event in seen] == ["reply"]


def test_attached_sinks_write_until_closed(tmp_path: Path) -> None:
    hub = Telemetry()
    attached = attach_sinks(hub, log_dir=tmp_path, stdout=False)
    hub.emit("reply", guild_id=1)
    attached.close()  # detaches and closes the file sink
    hub.emit("reply", guild_id=2)
    assert [line["guild_id"] for line in _lines(tmp_path / TELEMETRY_FILE)] == [1]


ROOT = Path(__file__).resolve().parents[3]
_EMITTED = re.compile(r"\.(?:emit|span)\(\s*\"([a-z_]+)\"")


def test_every_op_the_code_emits_is_documented() -> None:
    emitted = {
        match.group(1)
        for package in ("memory", "bot", "db")
        for path in (ROOT / package).rglob("*.py")
        for match in _EMITTED.finditer(path.read_text(encoding="utf-8"))
    }
    assert emitted, "the scan found no telemetry calls at all"
    undocumented = sorted(emitted - OPS.keys())
    assert undocumented == [], "add these ops to memory.telemetry.OPS and docs/operations.md"


def test_docs_explain_every_field_and_op() -> None:
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    missing = [name for name in [*FIELDS, *OPS] if f"`{name}`" not in text]
    assert missing == []


# --- optional OpenTelemetry ------------------------------------------------------------------


def test_no_spans_without_an_exporter_or_without_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not otel_exporter_configured({})
    assert not otel_exporter_configured({"OTEL_TRACES_EXPORTER": "none"})
    assert opentelemetry_sink_from_env({}) is None
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import fails like "not installed"
    assert opentelemetry_sink_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}) is None


class _RecordingTracer:
    """Stands in for the opentelemetry API's tracer: records what a real one would export."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []

    def start_span(self, name: str, *, start_time: int, attributes: dict[str, Any]) -> Any:
        record: dict[str, Any] = {"name": name, "start": start_time, "attributes": attributes}
        self.spans.append(record)

        class _Span:
            def set_status(self, status: Any) -> None:
                record["status"] = status

            def end(self, *, end_time: int) -> None:
                record["end"] = end_time

        return _Span()


def _fake_trace_module(tracer: _RecordingTracer) -> types.ModuleType:
    trace = types.ModuleType("opentelemetry.trace")

    class ProxyTracerProvider:
        pass

    class StatusCode:
        ERROR = "ERROR"

    trace.ProxyTracerProvider = ProxyTracerProvider  # type: ignore[attr-defined]
    trace.StatusCode = StatusCode  # type: ignore[attr-defined]
    trace.Status = lambda code, description: (code, description)  # type: ignore[attr-defined]
    trace.get_tracer = lambda name: tracer  # type: ignore[attr-defined]
    trace.get_tracer_provider = lambda: object()  # type: ignore[attr-defined]
    return trace


def test_events_become_spans_when_an_exporter_is_configured(
    monkeypatch: pytest.MonkeyPatch, telemetry: Telemetry
) -> None:
    tracer = _RecordingTracer()
    trace = _fake_trace_module(tracer)
    package = types.ModuleType("opentelemetry")
    package.trace = trace  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "opentelemetry", package)
    monkeypatch.setitem(sys.modules, "opentelemetry.trace", trace)

    sink = opentelemetry_sink_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert isinstance(sink, OpenTelemetrySink)
    telemetry.add_sink(sink)
    telemetry.emit("llm_call", purpose="merge", latency_ms=250.0, retries=1, extra={"a": 1})
    telemetry.emit("merge", outcome="error", error="LLMUnavailable: down")

    ok, failed = tracer.spans
    assert ok["name"] == "llm_call"
    assert ok["end"] - ok["start"] == 250_000_000
    assert ok["attributes"]["memorybot.purpose"] == "merge"
    assert ok["attributes"]["memorybot.retries"] == 1
    assert ok["attributes"]["memorybot.extra"] == '{"a": 1}'
    assert "status" not in ok
    assert failed["status"] == ("ERROR", "LLMUnavailable: down")
