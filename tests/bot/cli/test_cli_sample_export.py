"""The sample export under docs/ imports as documented: a folder of channel files, output for
people (no progress frames in a log, only days that were spoken on, channel names), and
recall finds what was said by channel name."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import asyncpg
import pytest

from bot.cli import CliError, build_parser, main
from bot.cli.importer import export_paths
from memory.core.settings import load_settings

SAMPLE = Path(__file__).resolve().parents[3] / "docs" / "sample-export"
GUILD = 800000000000000001


def test_the_sample_is_a_discordchatexporter_export() -> None:
    files = sorted(SAMPLE.glob("*.json"))
    assert [path.name for path in files] == ["general.json", "trips.json"]
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["guild"]["name"] == "Sample Hikers"
        assert data["channel"]["type"] == "GuildTextChat" and data["messages"]
        assert data["messageCount"] == len(data["messages"])


def test_a_folder_means_every_json_in_it(tmp_path: Path) -> None:
    assert export_paths([str(SAMPLE)]) == [SAMPLE / "general.json", SAMPLE / "trips.json"]
    assert export_paths([str(tmp_path / "missing.json")]) == [tmp_path / "missing.json"]
    with pytest.raises(CliError, match=r"no \*\.json export"):
        export_paths([str(tmp_path)])


async def test_importing_the_sample_folder_then_recalling_by_channel_name(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RETENTION_DAYS", "400")
    monkeypatch.setenv("MEMORYBOT_NOW", "2026-05-20T12:00:00+00:00")
    args = build_parser().parse_args(["import", str(SAMPLE), "--no-progress"])
    out, err = io.StringIO(), io.StringIO()  # not terminals, as in a log
    assert await args.handler(args, load_settings(), out=out, err=err) == 0
    text = out.getvalue()
    assert "\r" not in text and "\r" not in err.getvalue()  # no progress frames in a log
    assert "general.json: #general in Sample Hikers: 7 messages" in text
    assert "trips.json: #trips in Sample Hikers: 3 messages" in text
    # Five days were spoken on between 4 and 13 May: the other calendar days are not work.
    assert "closed 5 days of Sample Hikers" in text, text
    assert "episodes of Sample Hikers: " in text and "episodes of guild" not in text  # 37.7
    # The days were just closed: no advice to run `summarize --date` for them.
    assert "older days only" not in text
    stored = await db_pool.fetchval("SELECT count(*) FROM messages WHERE guild_id = $1", GUILD)
    assert stored == 10

    argv = ["recall", "--guild", "Sample Hikers", "lighthouse", "loop"]
    assert await asyncio.to_thread(main, argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "#trips" in first and "lighthouse loop" in first, first
    assert "#800000000000000003" not in first


class _Terminal(io.StringIO):
    """stderr as a terminal: progress is drawn."""

    def isatty(self) -> bool:
        return True


async def test_import_shows_progress_while_it_cuts_episodes_on_a_terminal(
    cli_env: Path, db_pool: asyncpg.Pool
) -> None:
    """Issue 37.11: cutting episodes after an import (seconds on a big export) shows that it is
    working, on a terminal."""
    args = build_parser().parse_args(["import", str(SAMPLE)])
    err = _Terminal()
    assert await args.handler(args, load_settings(), out=io.StringIO(), err=err) == 0
    assert "cutting Sample Hikers into episodes" in err.getvalue()


def test_operations_guide_agrees_with_the_commands() -> None:
    """Issue 37.14: every /memory settings option is documented, and the embedded server's
    backup goes through `memorybot db serve`, not Python one-liners."""
    guide = (SAMPLE.parent / "operations.md").read_text(encoding="utf-8")
    row = next(line for line in guide.splitlines() if line.startswith("| `/memory settings`"))
    for option in ("timezone", "ignore_channel", "forget_others", "storage", "search_config"):
        assert f"`{option}`" in row, option
    assert "`memory_sources`" in row
    assert "memorybot db serve" in guide and "get_server(" not in guide
