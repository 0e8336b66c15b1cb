"""The figures behind /memory stats: LLM usage today, cache hit rates, queue, fallbacks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.core.telemetry import Telemetry
from memory.telemetry import UsageRollup, build_stats, render_stats

NOW = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)


def _ev(op: str, at: datetime, outcome: str = "ok", **fields: object) -> dict[str, object]:
    return {"ts": at.isoformat(timespec="milliseconds"), "op": op, "outcome": outcome, **fields}


def test_llm_usage_today_by_purpose_and_cache_hit_rates() -> None:
    rollup = UsageRollup()
    yesterday = NOW - timedelta(days=1)
    rollup.seed(
        [
            _ev("llm_call", yesterday, purpose="merge", input_tokens=999),  # not today
            _ev("llm_call", NOW, purpose="merge", input_tokens=100, output_tokens=20),
            _ev("llm_call", NOW, purpose="merge", input_tokens=50, output_tokens=10),
            _ev("llm_call", NOW, "error", purpose="daily_summary"),
            _ev("llm_call", NOW, "fallback", purpose="reply", fallback_to="offline"),
            _ev("cache", NOW, cache="context", hit=True),
            _ev("cache", NOW, cache="context", hit=True),
            _ev("cache", NOW, cache="context", hit=True),
            _ev("cache", NOW, cache="context", hit=False),
            _ev("cache", NOW, cache="today", hit=False),
            _ev("remember", NOW),
        ]
    )
    report = build_stats(rollup, [], now=NOW)
    merge, *others = report.llm
    assert (merge.purpose, merge.calls, merge.input_tokens, merge.output_tokens) == (
        "merge",
        2,
        150,
        30,
    )
    assert {u.purpose: (u.calls, u.errors, u.failovers) for u in others} == {
        "daily_summary": (1, 1, 0),
        "reply": (1, 0, 1),
    }
    assert report.llm_calls == 4 and report.tokens == (150, 30)
    rates = {cache.name: cache.hit_rate for cache in report.caches}
    assert rates == {"context": 0.75, "today": 0.0}


def test_rollup_keeps_two_days_only() -> None:
    rollup = UsageRollup()
    for days_ago in range(10, -1, -1):
        rollup(_ev("llm_call", NOW - timedelta(days=days_ago), purpose="route"))
    assert len(rollup._llm) == 2
    assert [u.calls for u in rollup.llm_usage(NOW.date())] == [1]


def test_fallbacks_in_the_last_hour_and_queue_depth_from_recent_events() -> None:
    recent = [
        _ev("fallback", NOW - timedelta(hours=2), "degraded", reason="timeout"),
        _ev("ingest_batch", NOW - timedelta(minutes=50), size=10, queue_depth=40),
        _ev("fallback", NOW - timedelta(minutes=30), "degraded", reason="timeout"),
        _ev("fallback", NOW - timedelta(minutes=20), "empty", reason="llm_error"),
        _ev("fallback", NOW - timedelta(minutes=10), reason="reply_budget", members=2),
        _ev("llm_call", NOW - timedelta(minutes=5), "fallback", purpose="merge"),
        _ev("ingest_batch", NOW - timedelta(minutes=1), size=3, queue_depth=7),
    ]
    report = build_stats(UsageRollup(), recent, now=NOW)
    assert report.fallbacks_last_hour == {"timeout": 1, "llm_error": 1, "reply_budget": 1}
    assert report.llm_failovers_last_hour == 1
    assert report.queue_depth == 7
    assert build_stats(UsageRollup(), recent, now=NOW, queue_depth=0).queue_depth == 0


def test_rollup_as_a_live_sink_and_rendering() -> None:
    telemetry = Telemetry()
    rollup = UsageRollup()
    telemetry.add_sink(rollup)
    telemetry.emit("llm_call", purpose="route", provider="offline", input_tokens=12)
    telemetry.emit("cache", cache="history", hit=True)
    now = datetime.now(UTC)
    text = render_stats(build_stats(rollup, telemetry.recent(), now=now, queue_depth=3))
    assert f"LLM calls today ({now.date().isoformat()} UTC): 1" in text
    assert "route" in text and "history" in text and "100%" in text
    assert "Ingest queue depth: 3" in text
    assert "Memory fallbacks in the last hour: 0" in text
    empty = render_stats(build_stats(UsageRollup(), [], now=now))
    assert "no cache lookups yet" in empty and "Ingest queue depth: unknown" in empty
