"""The end-to-end reply bench keeps working: at a tiny size every member's question gets a real
answer (not an apology) through discord.py and the fake gateway, and every figure is there."""

from __future__ import annotations

import json
import shlex

import pytest

from bench import reply_e2e
from bench.database import BenchServer
from bench.report import Reporter
from db.embedded import EmbeddedPostgres


async def test_a_tiny_run_answers_everyone_and_prints_its_figures(
    pg_server: EmbeddedPostgres,
) -> None:
    server = BenchServer(pg_server.uri())
    report = Reporter()
    try:
        await reply_e2e.run_in(server, report, members=3, history=12, rounds=2)
    finally:
        await server.aclose()
    # Two rounds one at a time, a warm burst and a cold burst of three members each.
    assert report.value("reply_e2e", "answers_apologising") == 0
    answered = next(f for f in report.figures if f["metric"] == "answers_apologising")["of"]
    assert answered == 3 * 4
    for metric in ("reply_e2e_p99_ms", "reply_e2e_concurrent100_p99_ms"):
        for memories in ("cold", "warm"):
            p99 = report.value("reply_e2e", metric, memories=memories)
            p50 = report.value("reply_e2e", metric.replace("p99", "p50"), memories=memories)
            assert 0 < p50 <= p99
            composer = report.value("reply_e2e", metric.replace("p99", "composer_p99"))
            outside = report.value("reply_e2e", metric.replace("p99", "outside_composer_p99"))
            assert composer > 0 and outside > 0, "the composer's own time is told apart"


async def test_the_command_line_runs(
    pg_server: EmbeddedPostgres, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", pg_server.uri())
    assert await reply_e2e.main(shlex.split("--members 2 --history 4 --rounds 1")) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert {"reply_e2e_p99_ms", "reply_e2e_concurrent100_p99_ms"} <= {
        line["metric"] for line in lines
    }
