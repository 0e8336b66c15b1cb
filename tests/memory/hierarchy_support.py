"""Test support for the memory hierarchy: a guild's week of chat and a counting model.

The scripted model answers like a terse, honest LLM: a member's daily summary quotes what they
said, the history joins the days, the merge labels its three sources. That keeps assertions
about *what* reached each level readable, while `provider.calls` counts every call.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.context import ContextConfig, MemoryManager
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM
from memory.llm.providers import LLMRequest
from memory.llm.tasks import DailySummaries, TextOutput
from tests.fakes import ScriptedProvider
from tests.support import chat_message
from tests.support import member as make_member

GUILD = 1001
CHANNEL = 2002
ALICE, BOB, CAROL = 11, 12, 13
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
# "Today" in the tests: a Saturday noon, UTC.
NOW = datetime(2026, 11, 7, 12, 0, tzinfo=UTC)
TODAY = NOW.date()

_ids = itertools.count(1_000_000)


def daily(request: LLMRequest) -> DailySummaries:
    """Each target's summary quotes their own messages; quiet targets get nothing."""
    items = []
    for member in request.inputs["members"]:
        said = [
            message["content"]
            for message in request.inputs["messages"]
            if message["author_id"] == member["user_id"]
        ]
        text = f"{member['name']} said: " + " / ".join(said) + "." if said else ""
        items.append(f"{member['key']}: {text}")
    return DailySummaries(summaries=items)


def reduce(request: LLMRequest) -> DailySummaries:
    """One batched call: every member's parts joined, in order."""
    parts = request.inputs["parts"]
    return DailySummaries(
        summaries=[
            f"{member['key']}: Reduced: " + " + ".join(parts[str(member["user_id"])])
            for member in request.inputs["members"]
        ]
    )


def _narrative(name: str, days: list[dict[str, Any]]) -> str:
    return f"{name} over {len(days)} days. " + " ".join(d["text"] for d in days)


def history(request: LLMRequest) -> TextOutput | DailySummaries:
    """One member's days, or many members' at once (the batch when a day closes)."""
    inputs = request.inputs
    if "members" in inputs:
        return DailySummaries(
            summaries=[
                f"{member['key']}: "
                + _narrative(member["name"], inputs["days"].get(str(member["user_id"]), []))
                for member in inputs["members"]
            ]
        )
    return TextOutput(text=_narrative(inputs["member"]["name"], inputs["days"]))


def merge(request: LLMRequest) -> TextOutput:
    inputs = request.inputs
    text = f"FACTS {inputs['facts']} TODAY {inputs['today']} HISTORY {inputs['history']}"
    return TextOutput(text=text[: inputs["max_chars"]])


def model(**overrides: Any) -> ScriptedProvider:
    script: dict[str, Any] = {
        "daily_summary": daily,
        "daily_reduce": reduce,
        "historical_summary": history,
        "merge": merge,
    }
    script.update(overrides)
    return ScriptedProvider(script)


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {"context_max_chars": 4000, "_env_file": None}
    values.update(overrides)
    return Settings(**values)


def manager(
    pool: asyncpg.Pool,
    provider: ScriptedProvider,
    clock: FixedClock,
    telemetry: Telemetry,
    **setting_overrides: Any,
) -> MemoryManager:
    return MemoryManager(
        pool,
        MemoryLLM(provider),
        ContextConfig.from_settings(settings(**setting_overrides)),
        clock=clock,
        telemetry=telemetry,
    )


async def full(memory: MemoryManager, guild_id: int, user_id: int) -> str | None:
    """The member's context once its full build is done (no reply budget)."""
    return (await memory.wait_for_context(guild_id, user_id)).text


def message(
    author: int,
    content: str,
    at: datetime,
    *,
    guild: int = GUILD,
    mentions: tuple[int, ...] = (),
    is_bot: bool = False,
    message_id: int | None = None,
) -> ChatMessage:
    """A message of the hierarchy tests' guild, in their one channel."""
    return chat_message(
        message_id or next(_ids),
        content,
        guild_id=guild,
        channel_id=CHANNEL,
        author_id=author,
        created_at=at,
        mention_ids=mentions,
        author_is_bot=is_bot,
    )


async def add_members(pool: asyncpg.Pool, names: dict[int, str] = NAMES) -> None:
    await upsert_members(pool, [make_member(GUILD, uid, name) for uid, name in names.items()])


async def add_week(
    pool: asyncpg.Pool, authors: Iterable[int] = (ALICE, BOB, CAROL), today: date = TODAY
) -> list[ChatMessage]:
    """Every author says two things on each of the 7 days ending today (before noon)."""
    batch = []
    for offset in range(7):
        day = today - timedelta(days=offset)
        for author in authors:
            for hour in (9, 10):
                at = datetime(day.year, day.month, day.day, hour, author % 60, tzinfo=UTC)
                batch.append(message(author, f"{NAMES[author]} on {day} at {hour}h", at))
    await insert_messages(pool, batch)
    return batch


async def set_facts(pool: asyncpg.Pool, user_id: int, blob: str) -> None:
    await pool.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob) VALUES ($1, $2, $3)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET blob = EXCLUDED.blob",
        GUILD,
        user_id,
        blob,
    )


async def add_forgotten(pool: asyncpg.Pool, user_id: int, statement: str) -> None:
    await pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        GUILD,
        user_id,
        statement,
    )


def days_requested(provider: ScriptedProvider, purpose: str = "daily_summary") -> list[str]:
    return [r.inputs["day"] for r in provider.requests if r.purpose == purpose]
