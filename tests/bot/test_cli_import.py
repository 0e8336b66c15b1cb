"""`memorybot import`: counts per file, one clear line for a broken file, progress on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

import asyncpg

from bot.cli import build_parser
from bot.cli.importer import ProgressBar, handle
from memory.core.settings import Settings
from tests.memory.export_samples import export, message, sample_messages, write


def _settings(database_dsn: str, tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=database_dsn,
        log_dir=tmp_path / "logs",
        telemetry_stdout=False,
    )


async def test_import_reports_counts_and_names_the_broken_file(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    good = write(tmp_path / "general.json", export(sample_messages()))
    cut = tmp_path / "cut.json"
    data = json.dumps(export([message(9000 + i, "x") for i in range(20)])).encode()
    cut.write_bytes(data[: len(data) // 2])
    args = build_parser().parse_args(["import", str(good), str(cut), "--no-progress"])
    out, err = io.StringIO(), io.StringIO()

    code = await handle(args, _settings(database_dsn, tmp_path), out=out, err=err)

    assert code == 1
    assert out.getvalue().splitlines() == [
        "general.json: #général in Café ☕: 5 messages, 3 new, 0 already stored,"
        " 1 from bots skipped, 1 system messages skipped, 3 members"
    ]
    lines = err.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"memorybot import: {cut}: truncated: file ends early")
    assert lines[0].endswith("nothing imported from it")
    assert lines[1] == "memorybot import: 1 of 2 files failed"
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 3

    again = io.StringIO()
    args = build_parser().parse_args(["import", str(good), "--include-bots"])
    assert await handle(args, _settings(database_dsn, tmp_path), out=again, err=io.StringIO()) == 0
    assert "1 new, 3 already stored, 0 from bots skipped" in again.getvalue()


def test_progress_bar_draws_one_line() -> None:
    stream = io.StringIO()
    bar = ProgressBar("general.json", 200, stream=stream, enabled=True, width=10, min_interval=0)
    bar.update(50, 10)
    bar.update(200, 40)
    bar.finish()
    frames = stream.getvalue().split("\r")[1:]
    assert frames[0] == "general.json [##........]  25% 10 messages"
    assert frames[1] == "general.json [##########] 100% 40 messages\n"


def test_progress_bar_stays_quiet_off_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar("x", 10, stream=stream)
    bar.update(5, 1)
    bar.finish()
    assert stream.getvalue() == ""
