"""`memorybot import`: counts per file, one clear line for a broken file, progress on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

import asyncpg
import pytest

from bot.cli import build_parser
from bot.cli.importer import ProgressBar, handle
from memory.core.settings import Settings
from tests.memory.export_samples import export, message, sample_messages, write


def _settings(database_dsn: str, tmp_path: Path) -> Settings:
    return Settings(
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
    assert out.getvalue().splitlines()[0] == (
        "general.json: #général in Café ☕: 5 messages, 3 new, 0 already stored,"
        " 1 from bots skipped, 1 system messages skipped, 3 members"
    )
    lines = [line for line in err.getvalue().splitlines() if "warning" not in line]
    assert len(lines) == 2
    assert lines[0].startswith(f"memorybot import: {cut}: truncated: file ends early")
    assert lines[0].endswith("nothing imported from it")
    assert lines[1] == "memorybot import: 1 of 2 files failed"
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 3

    again = io.StringIO()
    args = build_parser().parse_args(["import", str(good), "--include-bots"])
    assert await handle(args, _settings(database_dsn, tmp_path), out=again, err=io.StringIO()) == 0
    assert "1 new, 3 already stored, 0 from bots skipped" in again.getvalue()


def test_progress_bar_draws_file_bar_and_messages() -> None:
    stream = io.StringIO()
    bar = ProgressBar("general.json", 200, stream=stream, enabled=True, min_interval=0)
    bar.update(50, 10)
    bar.update(200, 40)
    bar.finish()
    text = stream.getvalue()
    assert "general.json" in text and "25%" in text and "100%" in text
    assert "40 messages" in text


def test_progress_bar_stays_quiet_off_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar("x", 10, stream=stream)
    bar.update(5, 1)
    bar.finish()
    assert stream.getvalue() == ""


async def test_import_explains_summaries_and_warns_before_retention_deletes(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """History from March 2025 imported on 2025-06-30: older than RETENTION_DAYS=30."""
    monkeypatch.setenv("MEMORYBOT_NOW", "2025-06-30T12:00:00Z")
    good = write(tmp_path / "general.json", export(sample_messages()))
    args = build_parser().parse_args(["import", str(good), "--no-progress"])
    out, err = io.StringIO(), io.StringIO()
    assert await handle(args, _settings(database_dsn, tmp_path), out=out, err=err) == 0
    report = out.getvalue()
    assert "Café ☕: messages from 2025-03-01 to 2025-03-01 (UTC days)." in report
    # The import closes the days that are over itself: it says so, not "none of these yet".
    assert "every day of it that is over is closed now" in report
    assert "none of these days yet" not in report
    assert '--guild "Café ☕" --user NAME --now 2025-03-01' in report
    warning = err.getvalue()
    assert "RETENTION_DAYS=30" in warning and "all of them will be deleted" in warning
    assert "memorybot retention run" in warning
    assert "set RETENTION_DAYS=122 or more" in warning  # 2025-03-01 .. 2025-06-30


async def test_recent_import_says_how_long_it_is_kept(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORYBOT_NOW", "2025-03-03T12:00:00Z")
    good = write(tmp_path / "general.json", export(sample_messages()))
    # --no-learn leaves the days to the bot's window, and the import says which ones those are.
    args = build_parser().parse_args(["import", str(good), "--no-progress", "--no-learn"])
    out, err = io.StringIO(), io.StringIO()
    assert await handle(args, _settings(database_dsn, tmp_path), out=out, err=err) == 0
    assert "2025-03-01 to 2025-03-01 are within the bot's window" in out.getvalue()
    assert "keeps the oldest of them until 2025-03-31" in out.getvalue()
    assert "warning" not in err.getvalue()


async def test_an_interrupted_import_keeps_what_it_stored_and_says_how_far_it_got(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37.6: Ctrl-C part way keeps the committed batches, says so in one line, and
    importing again goes on (what is stored is skipped)."""
    big = write(
        tmp_path / "big.json",
        export([message(100_000 + i, f"line {i}", minute=i % 60) for i in range(2_500)]),
    )
    real_update = ProgressBar.update

    def interrupt_late(self: ProgressBar, done: int, seen: int, force: bool = False) -> None:
        if seen >= 2_200:  # two batches of 1,000 are committed by now
            raise KeyboardInterrupt
        real_update(self, done, seen, force=force)

    monkeypatch.setattr(ProgressBar, "update", interrupt_late)
    args = build_parser().parse_args(["import", str(big), "--no-progress"])
    settings = _settings(database_dsn, tmp_path)
    err = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        await handle(args, settings, out=io.StringIO(), err=err)
    said = err.getvalue()
    assert "memorybot import: interrupted in" in said and "2,000 messages of it were stored" in said
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 2_000

    monkeypatch.setattr(ProgressBar, "update", real_update)
    out = io.StringIO()
    assert await handle(args, settings, out=out, err=io.StringIO()) == 0
    assert "500 new, 2000 already stored" in out.getvalue()
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 2_500


async def test_an_import_embeds_its_messages_for_recall_by_meaning(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The default install (no key): the imported guild is embedded before the command ends,
    so the first question after it already finds messages by meaning."""
    good = write(tmp_path / "general.json", export(sample_messages()))
    args = build_parser().parse_args(["import", str(good), "--no-progress", "--no-learn"])
    out = io.StringIO()
    assert await handle(args, _settings(database_dsn, tmp_path), out=out, err=io.StringIO()) == 0
    assert "messages of Café ☕: 3 embedded for recall by meaning" in out.getvalue()
    stored = await db_pool.fetchval("SELECT count(*) FROM messages WHERE content <> ''")
    rows = await db_pool.fetch("SELECT DISTINCT model FROM message_embeddings")
    assert stored == 3 and [row["model"] for row in rows] == ["local:wordllama-l2-supercat-256"]
    assert await db_pool.fetchval("SELECT count(*) FROM message_embeddings") == stored


async def test_an_import_leaves_the_planner_statistics_of_what_it_stored(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """Before its first ANALYZE the planner guesses the messages table's size, and read a
    hit's exchange through every earlier message of the guild (16 of a 20 ms search on a
    1,000-message guild): the first questions after an import would pay that until autovacuum
    looks, up to a minute later. The import samples the table before it ends."""
    exported = [message(9000 + i, f"line {i}") for i in range(40)]
    good = write(tmp_path / "general.json", export(exported))
    args = build_parser().parse_args(["import", str(good), "--no-progress", "--no-learn"])
    assert await handle(args, _settings(database_dsn, tmp_path), err=io.StringIO()) == 0
    tuples = await db_pool.fetchval("SELECT reltuples FROM pg_class WHERE relname = 'messages'")
    assert tuples == 40, "the planner knows how many rows the import stored"
