"""`memorybot telemetry tail`: the table of events, filters by op, guild and since, errors in
one line, and --follow across a rotation (its touches for a human are in
test_telemetry_tail.py)."""

from __future__ import annotations

import io
import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import CliError, build_parser, main
from bot.cli import telemetry as telemetry_cli
from memory.core.settings import load_settings
from memory.core.telemetry import json_line
from memory.telemetry import TELEMETRY_FILE


def _ts(minutes_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat(timespec="milliseconds")


def _write(log_dir: Path, *events: dict[str, object]) -> None:
    with (log_dir / TELEMETRY_FILE).open("a", encoding="utf-8") as handle:
        for event in events:
            handle.write(json_line(event) + "\n")


def _tail(log_dir: Path, *argv: str, **kwargs: object) -> str:
    args = build_parser().parse_args(["telemetry", "tail", "--log-dir", str(log_dir), *argv])
    out = io.StringIO()
    assert args.handler(args, load_settings(), out=out, **kwargs) == 0
    return out.getvalue()


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        {"ts": _ts(120), "op": "llm_call", "outcome": "ok", "guild_id": 1, "purpose": "merge"},
        {"ts": _ts(30), "op": "remember", "outcome": "ok", "guild_id": 2, "user_id": 5},
        {"ts": _ts(5), "op": "llm_call", "outcome": "error", "guild_id": 2, "purpose": "reply"},
        {"ts": _ts(1), "op": "reply", "outcome": "ok", "guild_id": 1, "latency_ms": 420.0},
    )
    return tmp_path


def test_tail_renders_a_table(log_dir: Path) -> None:
    lines = _tail(log_dir).splitlines()
    assert lines[0].split()[:3] == ["TIME", "OP", "OUTCOME"]
    assert [line.split()[2] for line in lines[1:]] == ["llm_call", "remember", "llm_call", "reply"]
    assert "purpose=merge" in lines[1]


def test_tail_filters_by_op_guild_and_since(log_dir: Path) -> None:
    def ops(*argv: str) -> list[str]:
        return [json.loads(line)["op"] for line in _tail(log_dir, "--json", *argv).splitlines()]

    assert ops("--op", "llm_call") == ["llm_call", "llm_call"]
    assert ops("--op", "remember,reply") == ["remember", "reply"]
    assert ops("--guild", "2") == ["remember", "llm_call"]
    assert ops("--since", "10m") == ["llm_call", "reply"]
    assert ops("--since", "1h", "--guild", "2", "--op", "llm") == ["llm_call"]
    assert ops("-n", "1") == ["reply"]


def test_tail_explains_a_bad_since_or_missing_file(tmp_path: Path, log_dir: Path) -> None:
    with pytest.raises(CliError, match="--since"):
        _tail(log_dir, "--since", "yesterday-ish")
    with pytest.raises(CliError, match="no telemetry file"):
        _tail(tmp_path / "nowhere")


def test_main_reports_errors_as_one_line(log_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["telemetry", "tail", "--log-dir", str(log_dir), "--since", "soon"]) == 1
    assert capsys.readouterr().err.startswith("memorybot: --since")


def test_tail_follow_prints_new_events_across_rotation(log_dir: Path) -> None:
    out = io.StringIO()
    stop = threading.Event()
    args = build_parser().parse_args(
        ["telemetry", "tail", "-f", "--json", "--op", "reply", "--log-dir", str(log_dir)]
    )
    worker = threading.Thread(
        target=telemetry_cli.handle,
        args=(args, load_settings()),
        kwargs={"out": out, "should_stop": stop.is_set, "poll_seconds": 0.01},
    )
    worker.start()

    def seen() -> list[int]:
        return [json.loads(line).get("n", 0) for line in out.getvalue().splitlines()]

    def wait_for(count: int) -> None:
        deadline = time.monotonic() + 5
        while len(seen()) < count and time.monotonic() < deadline:
            time.sleep(0.01)

    try:
        wait_for(1)  # the history: the one past reply
        _write(log_dir, {"ts": _ts(0), "op": "reply", "outcome": "ok", "n": 1})
        _write(log_dir, {"ts": _ts(0), "op": "remember", "outcome": "ok", "n": 99})
        wait_for(2)
        (log_dir / TELEMETRY_FILE).rename(log_dir / (TELEMETRY_FILE + ".1"))
        _write(log_dir, {"ts": _ts(0), "op": "reply", "outcome": "ok", "n": 2})
        wait_for(3)
    finally:
        stop.set()
        worker.join(timeout=5)
    assert seen() == [0, 1, 2]
