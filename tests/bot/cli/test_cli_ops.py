"""The operations CLI: `retention run`, `user export|purge|optout|optin`, `recall`, `jobs`,
`settings` (`telemetry tail` is in test_cli_telemetry.py)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import CliError, build_parser, main
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from memory.core.settings import load_settings
from memory.telemetry import TELEMETRY_FILE

# --- retention run ---------------------------------------------------------------------------


async def test_retention_run_deletes_old_messages_and_prints_counts(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = datetime(2025, 6, 30, 12, tzinfo=UTC)
    await db_pool.execute("INSERT INTO guilds (guild_id, name) VALUES (10, 'Tea Club')")
    await insert_messages(
        db_pool,
        [
            ChatMessage(1, 10, 11, 7, "old", now - timedelta(days=31)),
            ChatMessage(2, 10, 11, 7, "new", now - timedelta(days=29)),
        ],
    )
    argv = ["retention", "run", "--now", now.isoformat()]
    assert await asyncio.to_thread(main, [*argv, "--dry-run"]) == 0
    assert "would delete 1 message older" in capsys.readouterr().out
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 2

    caplog.set_level(logging.INFO)
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("retention: deleted 1 message older") and "(Tea Club: 1)" in out
    # Issue 37.9: printed once, not logged again beside it.
    assert not [r for r in caplog.records if "retention: deleted" in r.getMessage()]
    assert "in 1 batch;" in out  # words, not "1 messages ... in 1 batches"
    assert [r["content"] for r in await db_pool.fetch("SELECT content FROM messages")] == ["new"]
    logged = (cli_env / "logs" / TELEMETRY_FILE).read_text().splitlines()
    assert [json.loads(line)["op"] for line in logged] == ["retention", "retention"]

    assert await asyncio.to_thread(main, argv) == 0  # again: nothing left, said plainly
    out = capsys.readouterr().out
    assert out.startswith("retention: no messages older than") and "nothing deleted" in out
    assert "0 batches" not in out


# --- user export | purge ---------------------------------------------------------------------

GUILD, ALICE, BOB = 4242, 111111111111111111, 222222222222222222


async def _seed_members(db_pool: asyncpg.Pool) -> None:
    await db_pool.execute("INSERT INTO guilds (guild_id, name) VALUES ($1, 'Tea Club')", GUILD)
    await upsert_members(
        db_pool,
        [
            Member(GUILD, ALICE, username="alice_w", nickname="Alice"),
            Member(GUILD, BOB, username="bob", nickname="Alice B"),
            Member(GUILD, 3, username="sam", nickname="Sam"),
            Member(GUILD, 4, username="sam2", nickname="Sam"),
        ],
    )
    now = datetime.now(UTC)
    await insert_messages(
        db_pool,
        [
            ChatMessage(1, GUILD, 5, ALICE, "hello from alice", now),
            ChatMessage(2, GUILD, 5, BOB, "hi alice", now),
        ],
    )
    await db_pool.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob) VALUES ($1, $2, 'Alice likes tea.')",
        GUILD,
        ALICE,
    )


async def test_user_export_to_stdout_and_file(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    assert (
        await asyncio.to_thread(main, ["user", "export", "--guild", "Tea Club", "--user", "alice"])
        == 0
    )
    export = json.loads(capsys.readouterr().out)  # stdout is exactly the JSON document
    assert export["user_id"] == ALICE and export["facts"]["blob"] == "Alice likes tea."
    assert [m["content"] for m in export["messages"]] == ["hello from alice"]

    out = cli_env / "exports" / "alice.json"
    argv = ["user", "export", "--guild", str(GUILD), "--user", str(ALICE), "--out", str(out)]
    assert await asyncio.to_thread(main, argv) == 0
    assert json.loads(out.read_text())["member"]["username"] == "alice_w"
    assert "exported Alice" in capsys.readouterr().err


async def test_user_commands_explain_unknown_and_ambiguous_targets(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    cases = [
        (["--guild", "999", "--user", "alice"], "no guild 999"),
        (["--guild", str(GUILD), "--user", "nobody"], "no member named 'nobody'"),
        (["--guild", str(GUILD), "--user", "77"], "nothing is held about user 77"),
        (["--guild", str(GUILD), "--user", "sam"], "'sam' matches 2 members"),
    ]
    for args, message in cases:
        for argv in (["user", "export", *args], ["user", "purge", *args, "--yes"]):
            assert await asyncio.to_thread(main, argv) == 1
            err = capsys.readouterr().err
            assert err.startswith("memorybot: ") and message in err, err
    assert await db_pool.fetchval("SELECT count(*) FROM members") == 4


async def test_user_purge_asks_first_and_deletes_on_yes(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    args = build_parser().parse_args(["user", "purge", "--guild", str(GUILD), "--user", "Alice"])
    settings = load_settings()
    prompts: list[str] = []

    def decline(prompt: str) -> bool:
        prompts.append(prompt)
        return False

    assert await args.handler(args, settings, confirm=decline) == 1
    assert "Alice (@alice_w, id 111111111111111111)" in prompts[0]
    assert "messages: 1" in prompts[0] and "facts: 1" in prompts[0]
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 2  # nothing deleted

    assert await args.handler(args, settings, confirm=lambda prompt: True) == 0
    assert capsys.readouterr().out.startswith("purged Alice")
    assert await db_pool.fetchval("SELECT count(*) FROM messages WHERE author_id = $1", ALICE) == 0
    assert await db_pool.fetchval("SELECT count(*) FROM user_facts") == 0
    assert await db_pool.fetchval("SELECT count(*) FROM members WHERE user_id = $1", BOB) == 1


async def test_user_purge_prompt_reads_stdin(
    cli_env: Path,
    db_pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await _seed_members(db_pool)
    argv = ["user", "purge", "--guild", str(GUILD), "--user", "bob"]
    monkeypatch.setattr("sys.stdin", io.StringIO("no\n"))
    assert await asyncio.to_thread(main, argv) == 1
    assert "Type 'yes' to purge" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # EOF declines too
    assert await asyncio.to_thread(main, argv) == 1
    monkeypatch.setattr("sys.stdin", io.StringIO("yes\n"))
    assert await asyncio.to_thread(main, argv) == 0
    assert await db_pool.fetchval("SELECT count(*) FROM members WHERE user_id = $1", BOB) == 0


async def test_user_optout_and_optin_from_the_command_line(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    settings = load_settings()
    optout = build_parser().parse_args(
        ["user", "optout", "--guild", str(GUILD), "--user", "Alice", "--yes"]
    )
    assert await optout.handler(optout, settings) == 0
    assert capsys.readouterr().out.startswith("opted out Alice")
    assert await db_pool.fetchval("SELECT count(*) FROM messages WHERE author_id = $1", ALICE) == 0
    state = await db_pool.fetchval(
        "SELECT state FROM member_consent WHERE guild_id = $1 AND user_id = $2", GUILD, ALICE
    )
    assert state == "out"

    never_seen = build_parser().parse_args(
        ["user", "optout", "--guild", "424242", "--user", "411111111111111119", "--yes"]
    )
    assert await never_seen.handler(never_seen, settings) == 0  # honoured before any import

    optin = build_parser().parse_args(
        ["user", "optin", "--guild", str(GUILD), "--user", str(ALICE)]
    )
    assert await optin.handler(optin, settings) == 0
    assert "opted in" in capsys.readouterr().out

    unknown = build_parser().parse_args(
        ["user", "optin", "--guild", str(GUILD), "--user", "nobody-by-that-name"]
    )
    with pytest.raises(CliError, match="no member named"):
        await unknown.handler(unknown, settings)


async def test_recall_prints_date_author_channel_and_text(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    await insert_messages(
        db_pool,
        [
            ChatMessage(
                9001,
                GUILD,
                77,
                ALICE,
                "we hiked up to the old lighthouse on saturday",
                datetime(2026, 10, 3, 15, 30, tzinfo=UTC),
            )
        ],
    )
    args = build_parser().parse_args(
        ["recall", "--guild", str(GUILD), "where", "was", "that", "lighthouse", "hike?"]
    )
    assert await args.handler(args, load_settings()) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        "1.       Sat 3 October 2026 15:30  Alice  #77  we hiked up to the old"
    )


# --- jobs ---------------------------------------------------------------------------------------


async def test_jobs_shows_the_queue_and_retries_held_jobs(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    from memory.jobs import JobQueue

    queue = JobQueue(db_pool)
    assert await queue.close_day(123, datetime(2026, 11, 6).date())
    assert await asyncio.to_thread(main, ["jobs"]) == 0
    out = capsys.readouterr().out
    assert "queue: close_day waiting: 1" in out and "held after failing: 0" in out

    # The job failed for good: held, with its last error.
    job_id = await db_pool.fetchval("UPDATE pgqueuer SET status = 'failed' RETURNING id")
    record = {"exception_type": "LLMUnavailable", "exception_message": "quota exhausted"}
    await db_pool.execute(
        "INSERT INTO pgqueuer_log (job_id, status, priority, entrypoint, traceback)"
        " VALUES ($1, 'failed', 0, 'close_day', $2::jsonb)",
        job_id,
        json.dumps(record),
    )
    assert await asyncio.to_thread(main, ["jobs"]) == 0
    out = capsys.readouterr().out
    assert "held after failing: 1" in out
    assert f"#{job_id} close_day guild 123 day 2026-11-06" in out
    assert "LLMUnavailable: quota exhausted" in out

    assert await asyncio.to_thread(main, ["jobs", "retry"]) == 0
    assert "queued 1 held jobs again" in capsys.readouterr().out
    assert await db_pool.fetchval("SELECT status::text FROM pgqueuer") == "queued"


async def test_settings_change_the_search_configuration(
    cli_env: Path, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed_members(db_pool)
    await insert_messages(
        db_pool,
        [ChatMessage(9002, GUILD, 77, ALICE, "our dogs chased the ball", datetime.now(UTC))],
    )
    recall = build_parser().parse_args(["recall", "--guild", str(GUILD), "whose", "dog?"])
    # 'simple': words as written ("dog" is too short to be searched as a prefix of "dogs")
    assert await recall.handler(recall, load_settings()) == 1

    change = build_parser().parse_args(
        ["settings", "--guild", str(GUILD), "--search-config", "english"]
    )
    assert await change.handler(change, load_settings()) == 0
    assert "Recall search configuration: english" in capsys.readouterr().out
    assert await recall.handler(recall, load_settings()) == 0
    assert "our dogs chased the ball" in capsys.readouterr().out

    bad = build_parser().parse_args(["settings", "--guild", str(GUILD), "--search-config", "xx"])
    with pytest.raises(CliError, match=r"use one of .*english"):
        await bad.handler(bad, load_settings())
