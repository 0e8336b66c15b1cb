"""Input that PostgreSQL cannot take as it is: lone UTF-16 surrogates and NUL in any text
field, ids above int64, an export whose `messages` is not a list. Text is cleaned at the
boundary; a bad message is left out and named while the file's clean ones go in; a file that
is unusable is one clear error, and the other files still go in."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.cli import build_parser
from bot.cli.importer import handle
from db.members import get_member, upsert_members
from db.messages import get_message
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.surrogates import clean_name, clean_text
from memory.core.telemetry import Telemetry
from memory.ingest import BatchedWriter, ExportFormatError, ExportImporter
from tests.memory.export_samples import ALICE, BOB, GUILD_ID, export, message

DIRTY = "bad \ud800 byte\x00 here"
CLEAN = "bad \ufffd byte here"


def _dump(path: Path, data: Any) -> Path:
    """json.dumps escapes the lone surrogate as \\ud800, as a real export would."""
    path.write_text(json.dumps(data), encoding="ascii")
    return path


def test_clean_text_replaces_lone_surrogates_and_drops_nul() -> None:
    assert clean_text(DIRTY) == CLEAN
    assert clean_text("\ud83d\ude00") == "😀"  # a split pair is joined, not replaced
    assert clean_text("plain ☕") == "plain ☕"
    assert clean_name(" \x00 ") is None and clean_name(None) is None


async def test_import_cleans_every_text_field(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    author = {**ALICE, "name": "ali\x00ce\udc00", "nickname": "Al\ud800"}
    data = export(
        [
            message(5001, DIRTY, author=author, attachments=[{"fileName": "c\ud800t.png"}]),
            message(5002, "fine", author=BOB),
        ],
        guild={"id": str(GUILD_ID), "name": "Caf\ud800"},
    )
    data["channel"]["name"] = "gen\x00eral"
    path = _dump(tmp_path / "dirty.json", data)

    result = await ExportImporter(db_pool, telemetry=telemetry).import_file(path)

    assert (result.seen, result.new) == (2, 2)
    stored = await get_message(db_pool, 5001)
    assert stored is not None and stored.content == f"{CLEAN} [image: c\ufffdt.png]"
    alice = await _member(db_pool, GUILD_ID, int(str(ALICE["id"])))
    assert (alice.username, alice.nickname) == ("alice\ufffd", "Al\ufffd")
    guild = await db_pool.fetchval("SELECT name FROM guilds WHERE guild_id = $1", GUILD_ID)
    assert guild == "Caf\ufffd"


@pytest.mark.parametrize(
    ("bad", "label", "problem"),
    [
        (message(2**63, "x"), str(2**63), "id is out of range"),
        (message(7, "x", reference={"messageId": str(2**64)}), "7", "out of range"),
        (message(8, "x", author={**ALICE, "id": "9" * 30}), "8", "author.id is out of"),
        ({"id": "9", "content": "no author"}, "9", "author is missing"),
    ],
)
async def test_a_bad_message_is_named_and_the_clean_ones_go_in(
    db_pool: asyncpg.Pool,
    tmp_path: Path,
    telemetry: Telemetry,
    bad: dict[str, Any],
    label: str,
    problem: str,
) -> None:
    clean = [message(7000 + n, f"clean message {n}") for n in range(30)]
    path = _dump(tmp_path / "mixed.json", export([*clean[:15], bad, *clean[15:]]))

    result = await ExportImporter(db_pool, telemetry=telemetry).import_file(path)

    assert (result.seen, result.new) == (31, 30)
    assert [row[0] for row in result.bad_rows] == [label]
    assert problem in result.bad_rows[0][1]
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 30


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (export({"1": "x"}), "'messages' is not a list"),  # type: ignore[arg-type]
        (export("hello"), "'messages' is not a list"),  # type: ignore[arg-type]
        ({k: v for k, v in export([]).items() if k != "messages"}, "'messages' is missing"),
    ],
)
async def test_unusable_files_are_one_clear_error(
    db_pool: asyncpg.Pool, tmp_path: Path, data: Any, problem: str, telemetry: Telemetry
) -> None:
    data.pop("messageCount", None)
    path = _dump(tmp_path / "odd.json", data)
    with pytest.raises(ExportFormatError, match=problem):
        await ExportImporter(db_pool, telemetry=telemetry).import_file(path)
    assert await db_pool.fetchval("SELECT count(*) FROM messages") == 0


async def test_cli_import_goes_on_after_a_bad_file(
    database_dsn: str, db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    first = _dump(tmp_path / "a.json", export([message(6001, DIRTY)]))
    huge = _dump(tmp_path / "b.json", export([message(2**64, "x"), message(6003, "kept")]))
    wrong = _dump(tmp_path / "c.json", export({"not": "a list"}))  # type: ignore[arg-type]
    last = _dump(tmp_path / "d.json", export([message(6002, "the end")]))
    settings = Settings(
        _env_file=None,
        database_url=database_dsn,
        log_dir=tmp_path / "logs",
        telemetry_stdout=False,
    )
    files = [str(p) for p in (first, huge, wrong, last)]
    args = build_parser().parse_args(["import", *files, "--no-progress"])
    out, err = io.StringIO(), io.StringIO()

    assert await handle(args, settings, out=out, err=err) == 1

    stored = {r["message_id"] for r in await db_pool.fetch("SELECT message_id FROM messages")}
    assert stored == {6001, 6002, 6003}  # the bad message of b.json cost only itself
    lines = err.getvalue().splitlines()
    assert f"b.json: message {2**64} left out: id is out of range" in lines[0]
    assert "c.json: 'messages' is not a list; nothing imported from it" in lines[1]
    assert lines[-2] == "memorybot import: 1 of 4 files failed"
    assert lines[-1].startswith("memorybot import: 1 of 4 files had messages left out")
    imported = [
        line
        for line in out.getvalue().splitlines()
        if line.startswith(("a.json", "b.json", "d.json"))
    ]
    assert len(imported) == 3  # one summary line per file that went in
    assert "1 bad messages left out" in imported[1]


async def test_live_events_with_dirty_text_are_stored_clean(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Whatever reaches the writer (live messages, edits, member names) is stored cleaned,
    not rejected: one dirty event never costs the message."""
    writer = BatchedWriter(db_pool, batch_size=10, flush_seconds=0.01, telemetry=telemetry)
    writer.start()
    created = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    try:
        writer.submit_member(
            Member(
                guild_id=1, user_id=2, username="u\ud800", nickname="n\x00ick", aliases=("\udfff",)
            )
        )
        for message_id, content in ((1, DIRTY), (2, "fine")):
            writer.submit(
                ChatMessage(
                    message_id=message_id,
                    guild_id=1,
                    channel_id=3,
                    author_id=2,
                    content=content,
                    created_at=created,
                )
            )
        await writer.flush()
        writer.submit_edit(
            ChatMessage(
                message_id=2,
                guild_id=1,
                channel_id=3,
                author_id=2,
                content="edited \udc00",
                created_at=created,
            )
        )
        await writer.flush()
    finally:
        await writer.close()
    assert (await _stored(db_pool, 1)).content == CLEAN
    assert (await _stored(db_pool, 2)).content == "edited \ufffd"
    member = await _member(db_pool, 1, 2)
    assert (member.username, member.nickname, member.aliases) == ("u\ufffd", "nick", ("\ufffd",))
    assert telemetry.recent("ingest_reject") == []
    await upsert_members(db_pool, [Member(guild_id=1, user_id=2, global_name="\x00")])
    assert (await _member(db_pool, 1, 2)).global_name is None


async def _stored(pool: asyncpg.Pool, message_id: int) -> ChatMessage:
    message = await get_message(pool, message_id)
    assert message is not None, f"message {message_id} is not stored"
    return message


async def _member(pool: asyncpg.Pool, guild_id: int, user_id: int) -> Member:
    member = await get_member(pool, guild_id, user_id)
    assert member is not None, f"member {user_id} is not stored"
    return member
