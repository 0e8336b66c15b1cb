"""The live-model run's report (bench/live_report.py), over events the real Telemetry class emits
and exchanges as the recording proxy keeps them; the live run itself is `make test-llm`."""

from __future__ import annotations

from typing import Any

from bench.live_checks import reached
from bench.live_flows import answers
from bench.live_proxy import Exchange
from bench.live_report import examples, never_right, purpose_table, render_table
from memory.core.telemetry import Telemetry


def _call(telemetry: Telemetry, purpose: str, outcome: str, **fields: object) -> None:
    telemetry.emit("llm_call", purpose=purpose, outcome=outcome, provider="openai", **fields)


def _run(telemetry: Telemetry) -> list[dict[str, Any]]:
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


def test_the_report_quotes_what_the_model_answered_and_names_what_it_never_got_right(
    telemetry: Telemetry,
) -> None:
    table = purpose_table(_run(telemetry))
    exchanges = [
        Exchange("plain", "whois", "/v1/chat/completions", {}, 200, _answer("")),
        Exchange("plain", "whois", "/v1/chat/completions", {}, 200, _answer('{"text": "x"}')),
        Exchange("plain", "daily_summary", "/v1/chat/completions", {}, 500, {"error": "down"}),
        Exchange("tools", "reply", "/v1/chat/completions", {}, 200, _answer("", call=True)),
    ]
    answered = examples(exchanges)
    assert answered["whois"] == repr('{"text": "x"}')  # an empty answer only when nothing else
    assert answered["daily_summary"] == "HTTP 500: {'error': 'down'}"
    assert answered["reply"] == "tool_calls search_memory"
    assert never_right(table) == ["whois"]
    report = render_table(table, answered)
    assert 'NEVER RIGHT, it answered \'{"text": "x"}\'' in report
    assert "answered e.g. HTTP 500" in report


def _answer(text: str, *, call: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if call:
        message["tool_calls"] = [{"id": "1", "function": {"name": "search_memory"}}]
    return {"choices": [{"message": message}]}


def test_an_answer_of_several_lines_is_read_whole_from_the_console() -> None:
    transcript = "Alice> Bot hi\nBot: **Hi** Alice!\nHow are you?\n\nAlice> Bot bye\nBot: Bye\n"
    assert answers(transcript) == ["**Hi** Alice!\nHow are you?", "Bye"]
    # The server's text is found in what the member saw, markup and line breaks aside.
    assert reached("Hi Alice! How   are you?", answers(transcript))
    assert not reached("Hi Alice! How are you today?", answers(transcript))
