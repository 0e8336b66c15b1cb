"""The live-model run's report and checks (bench/live_report.py), over events the real
Telemetry class emits; the live run itself is `make test-llm`."""

from __future__ import annotations

from bench.live_report import Checks, purpose_table, render_table
from memory.core.telemetry import Telemetry


def _call(telemetry: Telemetry, purpose: str, outcome: str, **fields: object) -> None:
    telemetry.emit("llm_call", purpose=purpose, outcome=outcome, provider="openai", **fields)


def _run(telemetry: Telemetry) -> list[dict]:
    _call(telemetry, "daily_summary", "ok", latency_ms=900, input_tokens=500, output_tokens=60)
    _call(telemetry, "daily_summary", "ok", latency_ms=1500, input_tokens=400, output_tokens=40)
    _call(telemetry, "daily_summary", "degraded", reason="unusable_output", detail="missing")
    _call(telemetry, "whois", "ok", latency_ms=300, input_tokens=90, output_tokens=9)
    _call(telemetry, "whois", "degraded", reason="unusable_output", detail="echo")
    _call(telemetry, "reply", "fallback", error="LLMTimedOut: no answer", retries=0)
    _call(telemetry, "reply", "ok", latency_ms=8000, input_tokens=900, output_tokens=80)
    telemetry.emit("llm_call", purpose="reply", outcome="ok", provider="offline")
    return telemetry.recent("llm_call")


def test_the_table_counts_each_purpose_of_the_model(telemetry: Telemetry) -> None:
    table = purpose_table(_run(telemetry))
    assert set(table) == {"daily_summary", "whois", "reply"}
    daily = table["daily_summary"]
    assert (daily["calls"], daily["accepted"], daily["degraded"]) == (2, 1, 1)
    assert daily["degraded_by"] == "missing 1"
    assert daily["latency_p50_ms"] == 1200 and daily["latency_p95_ms"] == 1500
    assert (daily["input_tokens"], daily["output_tokens"]) == (900, 100)
    assert table["whois"]["accepted"] == 0 and table["whois"]["degraded_by"] == "echo 1"
    assert table["reply"]["calls"] == 2 and table["reply"]["fell_back"] == 1  # offline apart
    assert "degraded: missing 1" in render_table(table)


def test_checks_pass_on_a_good_run_and_name_what_failed(telemetry: Telemetry) -> None:
    checks = Checks(_run(telemetry))
    checks.not_emptier("alice", "Alice lives in Lisbon.", "Alice lives in Lisbon.")
    checks.whois_names("Alice loves mountain biking.", "mountain biking")
    checks.model_replied()
    assert not checks.failed()

    bad = Telemetry()
    _call(bad, "daily_summary", "fallback", error="LLMRequestRejected: response_format", retries=2)
    _call(bad, "reply", "ok", latency_ms=10)
    _call(bad, "reply", "degraded", reason="unusable_output", detail="echo")
    checks = Checks(bad.recent("llm_call"))
    checks.not_emptier("bob", "", "Bob is allergic to wasps.")
    checks.whois_names("the answer", "mountain biking")
    checks.model_replied()
    failed = {name for name, failed in checks.results() if failed}
    assert failed == {
        "no call fails for a format",
        "no refused request retried",
        "memory of bob no emptier than offline",
        "whois names the stored facts",
        "a reply carries the model's own answer",
    }
    assert any(line.startswith("FAIL") and "wasps" in line for line in checks.lines())
