"""Reading telemetry back: --since parsing, filters, the table, following across rotation."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory.core.telemetry import Telemetry, json_line
from memory.telemetry import TELEMETRY_FILE, RotatingFileSink
from memory.telemetry._view import (
    EventFilter,
    FileFollower,
    filter_events,
    parse_line,
    parse_since,
    read_events,
    render_row,
    render_table,
)

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def _event(op: str, minutes_ago: float, **fields: object) -> dict[str, object]:
    ts = (NOW - timedelta(minutes=minutes_ago)).isoformat(timespec="milliseconds")
    return {"ts": ts, "op": op, "outcome": "ok", **fields}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10m", NOW - timedelta(minutes=10)),
        ("90s", NOW - timedelta(seconds=90)),
        ("2h", NOW - timedelta(hours=2)),
        ("1d", NOW - timedelta(days=1)),
        ("1.5h", NOW - timedelta(minutes=90)),
        ("15", NOW - timedelta(minutes=15)),
        ("2025-03-10T11:00:00Z", datetime(2025, 3, 10, 11, tzinfo=UTC)),
    ],
)
def test_parse_since(text: str, expected: datetime) -> None:
    assert parse_since(text, now=NOW) == expected


def test_parse_since_rejects_nonsense_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="--since"):
        parse_since("ten minutes", now=NOW)


def test_parse_line_skips_junk() -> None:
    assert parse_line("") is None
    assert parse_line('{"ts": "2025-01-01T00:00:00+00:00", "op": "x"') is None  # truncated
    assert parse_line("[1, 2]") is None
    assert parse_line('{"hello": 1}') is None
    parsed = parse_line(json_line(_event("reply", 1)))
    assert parsed is not None and parsed["op"] == "reply"


def test_filters_by_op_guild_and_since() -> None:
    events = [
        _event("llm_call", 30, guild_id=1, purpose="merge"),
        _event("llm_call", 5, guild_id=2, purpose="reply"),
        _event("remember", 4, guild_id=1),
        _event("reply", 3, guild_id=1),
        _event("llm_fallback", 2, guild_id=1),
        _event("retention", 1),
    ]

    def ops(event_filter: EventFilter) -> list[str]:
        return [str(e["op"]) for e in filter_events(events, event_filter)]

    assert ops(EventFilter(ops=("llm_call",))) == ["llm_call", "llm_call"]
    # a prefix names a family: llm matches llm_call and llm_fallback, not "llmx"
    assert ops(EventFilter(ops=("llm",))) == ["llm_call", "llm_call", "llm_fallback"]
    assert ops(EventFilter(ops=("remember", "reply"))) == ["remember", "reply"]
    assert ops(EventFilter(guild_id=2)) == ["llm_call"]
    assert ops(EventFilter(since=NOW - timedelta(minutes=10))) == [
        "llm_call",
        "remember",
        "reply",
        "llm_fallback",
        "retention",
    ]
    assert ops(EventFilter(ops=("llm",), guild_id=1, since=NOW - timedelta(minutes=10))) == [
        "llm_fallback"
    ]


def test_table_rows_are_aligned_and_show_the_details() -> None:
    event = _event(
        "llm_call",
        0,
        guild_id=123456789012345678,
        latency_ms=812.4,
        provider="gemini",
        purpose="daily_summary",
        note="two words",
    )
    table = render_table([event, _event("reply", 0)])
    header, row, short_row = table.splitlines()
    assert header.split()[:6] == ["TIME", "OP", "OUTCOME", "GUILD", "USER", "MS"]
    assert header.index("OP") == row.index("llm_call") == short_row.index("reply")
    assert "123456789012345678" in row and " 812 " in row
    assert row.endswith('provider=gemini purpose=daily_summary note="two words"')
    assert "latency_ms" not in row and "guild_id" not in row
    long_row = render_row(_event("x", 0, blob="a" * 500), detail_width=40)
    assert long_row.endswith("blob=" + "a" * 34 + "…")


def test_read_events_spans_backups_in_order(tmp_path: Path) -> None:
    hub = Telemetry()
    sink = RotatingFileSink(tmp_path, max_bytes=10_000, backups=3)
    hub.add_sink(sink)
    for index in range(300):
        hub.emit("ingest", count=index)
    sink.close()
    assert (tmp_path / (TELEMETRY_FILE + ".1")).exists()
    counts = [event["count"] for event in read_events(tmp_path)]
    # the oldest lines fell off the last backup; the rest are complete and in order
    assert counts == list(range(counts[0], 300))
    assert len(counts) > 100


def test_follower_sees_new_lines_and_survives_rotation(tmp_path: Path) -> None:
    path = tmp_path / TELEMETRY_FILE
    path.write_text(json_line(_event("old", 9)) + "\n")
    follower = FileFollower(path)
    assert follower.poll() == []  # starts at the end: history is not repeated

    with path.open("a") as handle:
        handle.write(json_line(_event("a", 1)) + "\n" + '{"ts": "2025')  # half a line
    assert [json.loads(line)["op"] for line in follower.poll()] == ["a"]

    with path.open("a") as handle:
        handle.write('-03-10T12:00:00+00:00", "op": "b"}\n')
    # rotate the way RotatingFileHandler does: rename, then a fresh file
    path.rename(tmp_path / (TELEMETRY_FILE + ".1"))
    assert [json.loads(line)["op"] for line in follower.poll()] == ["b"]
    path.write_text(json_line(_event("c", 0)) + "\n")
    assert [json.loads(line)["op"] for line in follower.poll()] == ["c"]
    with path.open("a") as handle:
        handle.write(json_line(_event("d", 0)) + "\n")
    assert [json.loads(line)["op"] for line in follower.poll()] == ["d"]
    follower.close()


def test_follower_waits_for_a_file_that_does_not_exist_yet(tmp_path: Path) -> None:
    path = tmp_path / TELEMETRY_FILE
    follower = FileFollower(path)
    assert follower.poll() == []
    path.write_text(json_line(_event("first", 0)) + "\n")
    assert [json.loads(line)["op"] for line in follower.poll()] == ["first"]
    follower.close()


# --- names, outcomes, valid operations -----------------------------------------------------


class _Names:
    def guild_name(self, guild_id: int) -> str | None:
        return {1: "Climbers"}.get(guild_id)

    def member_name(self, guild_id: int, user_id: int) -> str | None:
        return {(1, 7): "alice"}.get((guild_id, user_id))


def test_rows_show_names_when_known_and_ids_otherwise() -> None:
    from memory.telemetry._view import render_row as row

    event = {"ts": "2026-01-01T00:00:00+00:00", "op": "remember", "outcome": "ok"}
    named = row({**event, "guild_id": 1, "user_id": 7}, names=_Names())
    assert "Climbers" in named and "alice" in named and " 7 " not in named
    unknown = row({**event, "guild_id": 2, "user_id": 8}, names=_Names())
    assert unknown.split()[-2:] == ["2", "8"]


def test_outcome_and_user_filters() -> None:
    from memory.telemetry._view import EventFilter as Filter

    events = [
        {"ts": "2026-01-01T00:00:00+00:00", "op": "reply", "outcome": "ok", "user_id": 7},
        {"ts": "2026-01-01T00:00:00+00:00", "op": "forget", "outcome": "error", "actor_id": 7},
        {"ts": "2026-01-01T00:00:00+00:00", "op": "reply", "outcome": "error", "user_id": 8},
    ]
    errors = [e["op"] for e in events if Filter(outcomes=("error",)).matches(e)]
    assert errors == ["forget", "reply"]
    by_seven = [e["op"] for e in events if Filter(user_id=7).matches(e)]
    assert by_seven == ["reply", "forget"]  # the subject or the actor


def test_unknown_op_names_the_valid_ones() -> None:
    from memory.telemetry import OPS, check_ops, outcome_style

    check_ops(["llm", "llm_call", "remember"])
    with pytest.raises(ValueError, match="unknown operation 'rememberr'") as raised:
        check_ops(["rememberr"])
    assert all(op in str(raised.value) for op in OPS)
    assert outcome_style({"outcome": "error"}) == "bold red"
    assert outcome_style({"outcome": "ok"}) is None
