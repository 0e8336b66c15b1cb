"""A reply to a question about one member, through the front door's wiring (open_memory's
composer, its real RecallService on PostgreSQL): when the hits with their exchanges fill the
recall budget, the member's own lines (REPLY_OWN_LINES) still bring more of what they said,
each alone and dated."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM
from memory.ports import IncomingMessage
from memory.wiring import Memory, open_memory
from tests.fakes import ScriptedProvider
from tests.support import chat_message, recalled_lines

G, GENERAL = 950, 610
MELANIE, JUDY, KIM = 51, 52, 53
BOT = 1 << 60
NOW = datetime(2023, 7, 20, 12, tzinfo=UTC)
QUESTION = "Bot, what has Melanie done in her garden?"


_GARDEN = (
    "planted tomatoes along the garden fence",
    "the garden gnome got stolen again",
    "my garden sunflowers are taller than me now",
    "built a raised garden bed for the herbs",
    "harvested the first garden zucchini of the year",
    "the roses finally bloomed in the garden",
    "started composting kitchen scraps for the garden",
    "put a little pond in the garden for frogs",
    "the garden hose burst and flooded the patio",
    "moved the strawberries to the sunny garden corner",
    "the blackbirds ate every cherry in the garden",
    "dug up the garden lawn for a wildflower meadow",
    "the garden shed roof is leaking again",
    "pruned the garden apple tree with my neighbour",
    "a hedgehog sleeps under the garden bench",
    "painted the garden gate bright blue",
    "the garden pumpkins are the size of footballs",
    "hung a bird feeder in the garden",
    "laid stepping stones across the garden",
    "the garden lavender smells amazing tonight",
)


async def _melanies_garden(db_pool: asyncpg.Pool) -> None:
    """Melanie's garden over twenty weeks, each line between two long turns of Judy's."""
    judy = (
        "oh wow, tell me everything about your garden, I have been thinking about starting"
        " one on the balcony but I never know what grows well in pots or in shade, and my"
        " landlord says no soil on the railings, so maybe hanging baskets or a small trough by"
        " the window would do, what do you think would survive a windy north-facing spot"
    )
    await insert_messages(
        db_pool,
        [
            said
            for n, line in enumerate(_GARDEN)
            for said in (
                _said(JUDY, f"{judy} ({n})", days_ago=150 - 7 * n + 0.01),
                _said(MELANIE, line, days_ago=150 - 7 * n),
                _said(JUDY, f"{judy}, and how is it going now? ({n})", days_ago=150 - 7 * n - 0.01),
            )
        ],
    )


async def test_asking_about_a_member_brings_more_of_their_lines_alone(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path
) -> None:
    """Hits with their exchanges fill the recall budget before all of Melanie's garden lines
    are in; her own lines bring more of them, one short dated line each."""
    await upsert_members(
        db_pool,
        [
            Member(G, MELANIE, username="melanie"),
            Member(G, JUDY, username="judy"),
            Member(G, KIM, username="kim"),
        ],
    )
    await _melanies_garden(db_pool)

    async with _memory(db_pool, telemetry, tmp_path, own_lines=20) as memory:
        prompt = await _prompt(memory, db_pool)
    async with _memory(db_pool, telemetry, tmp_path, own_lines=0) as without:
        fewer = await _prompt(without, db_pool)

    own = re.search(r'<recalled hit="\d+" kind="own">(.*?)</recalled>', prompt, re.S)
    assert own, "her own lines came"
    lines = recalled_lines(own.group(0))
    assert lines and all(line.speaker == "melanie" and line.notes for line in lines)
    assert 'kind="own"' not in fewer
    said = {line.text for line in recalled_lines(prompt)}
    said_without = {line.text for line in recalled_lines(fewer)}
    assert len(set(_GARDEN) & said) > len(set(_GARDEN) & said_without)


def _said(author: int, text: str, *, days_ago: float) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=GENERAL,
        author_id=author,
        created_at=NOW - timedelta(days=days_ago),
    )


@asynccontextmanager
async def _memory(
    db_pool: asyncpg.Pool, telemetry: Telemetry, tmp_path: Path, own_lines: int
) -> AsyncIterator[Memory]:
    settings = Settings(
        _env_file=None,
        llm_provider="offline",
        telemetry_stdout=False,
        log_dir=tmp_path,
        reply_own_lines=own_lines,
    )
    provider = ScriptedProvider({"reply": lambda request: "ok"})
    async with open_memory(
        settings, pool=db_pool, telemetry=telemetry, clock=FixedClock(NOW), llm=MemoryLLM(provider)
    ) as opened:
        opened.replies.bot_user_id = BOT
        yield opened


async def _prompt(memory: Memory, db_pool: asyncpg.Pool) -> str:
    """Kim asks; the reply prompt."""
    asked = _said(KIM, QUESTION, days_ago=0)
    await insert_messages(db_pool, [asked])
    body = re.sub(r"^Bot,?\s*", "", QUESTION)
    message = IncomingMessage(G, GENERAL, asked.message_id, KIM, "kim", body)
    return (await memory.replies.compose(message)).prompt
