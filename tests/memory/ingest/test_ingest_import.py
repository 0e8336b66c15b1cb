"""Importing DiscordChatExporter exports: content, replies, bots, idempotence, and files that are
broken anywhere leave nothing behind."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from db.members import get_member
from db.messages import get_message
from memory.core.models import ChatMessage, Member
from memory.core.telemetry import Telemetry
from memory.ingest import ExportFormatError, ExportImporter
from tests.memory.export_samples import (
    CHANNEL_ID,
    GUILD_ID,
    export,
    message,
    sample_messages,
    write,
)


async def _count(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval("SELECT count(*) FROM messages")
    return count


async def test_import_stores_conversation_with_surrogates(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    path = write(tmp_path / "general.json", export(sample_messages()))
    seen: list[tuple[int, int]] = []
    result = await ExportImporter(db_pool, telemetry=telemetry).import_file(
        path, progress=lambda done, count: seen.append((done, count))
    )
    assert (result.seen, result.new, result.existing) == (5, 3, 0)
    assert (result.skipped_bots, result.skipped_other) == (1, 1)
    assert result.guild_id == GUILD_ID and result.channel_name == "général"
    assert seen[-1] == (path.stat().st_size, 5)

    greeting = await _stored(db_pool, 1001)
    assert greeting.content == "Привет! 👋 שלום </content> & <b>"
    assert greeting.created_at == datetime(2025, 3, 1, 9, 0, 0, 123000, tzinfo=UTC)
    assert greeting.guild_id == GUILD_ID and greeting.channel_id == CHANNEL_ID
    photo = await _stored(db_pool, 1002)
    assert photo.content == "[image: cat.png]"
    assert photo.reply_to_id == 1001 and photo.mention_ids == (700000000000000011,)
    link = await _stored(db_pool, 1005)
    # the link preview repeats the URL; the sticker is kept
    assert link.content == "see https://example.com/x [sticker: Wave]"
    assert link.edited_at == datetime(2025, 3, 1, 9, 5, tzinfo=UTC)
    assert await get_message(db_pool, 1003) is None  # bot
    assert await get_message(db_pool, 1004) is None  # join notice

    alice = await _member(db_pool, GUILD_ID, 700000000000000011)
    assert (alice.username, alice.nickname) == ("alice", "Alice W")
    bob = await _member(db_pool, GUILD_ID, 700000000000000012)
    assert bob.nickname is None  # "nickname" equal to the username means none
    helper = await _member(db_pool, GUILD_ID, 700000000000000013)
    assert helper.is_bot
    guild = await db_pool.fetchrow("SELECT name FROM guilds WHERE guild_id = $1", GUILD_ID)
    assert guild is not None
    assert guild["name"] == "Café ☕"
    assert telemetry.recent("import")[0]["new"] == 3


async def test_importing_twice_adds_nothing(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    path = write(tmp_path / "general.json", export(sample_messages()), indent=None)
    importer = ExportImporter(db_pool, telemetry=telemetry)
    await importer.import_file(path)
    again = await importer.import_file(path)
    assert (again.new, again.existing) == (0, 3)
    assert await _count(db_pool) == 3


async def test_bots_are_imported_when_asked(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    path = write(tmp_path / "general.json", export(sample_messages()))
    result = await ExportImporter(db_pool, include_bots=True, telemetry=telemetry).import_file(path)
    assert result.new == 4 and result.skipped_bots == 0
    assert (await _stored(db_pool, 1003)).author_is_bot


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.97])
async def test_truncated_file_is_rejected_keeping_whole_batches_and_the_full_file_completes_it(
    db_pool: asyncpg.Pool, tmp_path: Path, cut: float, telemetry: Telemetry
) -> None:
    """A truncated file is refused; the batches committed before the cut stay (issue 37.6:
    nothing read is lost), and importing the whole file afterwards adds only the rest."""
    messages = [message(2000 + i, f"message {i} ✓", minute=i % 60) for i in range(300)]
    text = json.dumps(export(messages), ensure_ascii=False, indent=2)
    data = text.encode()
    path = tmp_path / "cut.json"
    path.write_bytes(data[: int(len(data) * cut)])
    importer = ExportImporter(
        db_pool, batch_size=20, telemetry=telemetry
    )  # several batches reach the server first
    with pytest.raises(ExportFormatError, match="truncated"):
        await importer.import_file(path)
    kept = await _count(db_pool)
    assert kept % 20 == 0 and kept < 300  # whole batches only
    whole = write(tmp_path / "whole.json", export(messages))
    result = await importer.import_file(whole)
    assert (result.existing, result.new) == (kept, 300 - kept)
    assert await _count(db_pool) == 300


async def test_truncated_inside_a_utf8_character(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    data = json.dumps(export([message(1, "👋👋👋")]), ensure_ascii=False).encode()
    cut = data.index("👋".encode()) + 2
    path = tmp_path / "cut.json"
    path.write_bytes(data[:cut])
    with pytest.raises(ExportFormatError):
        await ExportImporter(db_pool, telemetry=telemetry).import_file(path)


async def test_malformed_json_names_the_line(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    text = json.dumps(export(sample_messages()), indent=2)
    broken = text.replace('"content": "beep boop",', '"content": "beep boop"', 1)
    path = tmp_path / "broken.json"
    path.write_text(broken)
    line = broken[: broken.index('"beep boop"')].count("\n") + 2
    with pytest.raises(ExportFormatError, match=rf"malformed JSON: .*line {line}\)"):
        await ExportImporter(db_pool, telemetry=telemetry).import_file(path)
    assert await _count(db_pool) == 0


async def test_bad_messages_late_in_the_file_cost_only_themselves(
    db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry
) -> None:
    messages = [message(3000 + i, "fine") for i in range(50)]
    messages.append(message(4000, "no author", author={"name": "ghost"}))
    messages.append(message(4001, "when?", timestamp="yesterday"))
    path = write(tmp_path / "bad.json", export(messages))
    result = await ExportImporter(db_pool, batch_size=10, telemetry=telemetry).import_file(path)
    assert result.bad_rows == [
        ("4000", "author.id is not an id: 'None'"),
        ("4001", "timestamp is not an ISO timestamp: 'yesterday'"),
    ]
    assert result.new == 50 and await _count(db_pool) == 50


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"messages": []}, "no guild/channel"),
        (export([message(1, "x")], messageCount=2), "messageCount says 2"),
        (export([message(1, "x")], guild={"id": "0", "name": "Direct Messages"}), "direct-message"),
        ([1, 2, 3], "expected '{'"),
    ],
)
async def test_files_that_are_not_usable_exports(
    db_pool: asyncpg.Pool, tmp_path: Path, data: object, problem: str, telemetry: Telemetry
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ExportFormatError, match=problem):
        await ExportImporter(db_pool, telemetry=telemetry).import_file(path)
    assert await _count(db_pool) == 0


async def test_missing_file(db_pool: asyncpg.Pool, tmp_path: Path, telemetry: Telemetry) -> None:
    with pytest.raises(ExportFormatError, match="cannot read"):
        await ExportImporter(db_pool, telemetry=telemetry).import_file(tmp_path / "nope.json")


async def _stored(pool: asyncpg.Pool, message_id: int) -> ChatMessage:
    message = await get_message(pool, message_id)
    assert message is not None, f"message {message_id} is not stored"
    return message


async def _member(pool: asyncpg.Pool, guild_id: int, user_id: int) -> Member:
    member = await get_member(pool, guild_id, user_id)
    assert member is not None, f"member {user_id} is not stored"
    return member
