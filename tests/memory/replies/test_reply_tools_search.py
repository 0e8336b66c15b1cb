"""The reply tools on a real PostgreSQL: a model's search answers to the asking member's
viewer (never a channel they cannot read), keeps to the dates asked, names members, and every
call is a `tool_call` telemetry line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg

from db.members import upsert_members
from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.llm import MemoryLLM, ToolCall
from memory.llm.providers import LLMRequest
from memory.members import MemberDirectory, NameIndexCache
from memory.recall import RecallService, day_label
from memory.replies import (
    ConversationWindows,
    IncomingMessage,
    ReplyComposer,
    ReplyConfig,
    ReplyToolbox,
    Turn,
    build_tool_sources,
)
from tests.fakes import ScriptedProvider
from tests.support import chat_message

G = 700
GENERAL, MODS = 10, 11
MIA, KIM = 71, 72
DAY = datetime(2026, 9, 1, 18, tzinfo=UTC)


class NoContexts:
    async def get_memories(
        self, guild_id: int, user_id: int, *, budget: float, wait_in_queue: bool = True
    ) -> str | None:
        return "Mia keeps bees." if user_id == MIA else None


class NeverFolds:
    """A window that never outgrows its budget here: folding it would be a bug."""

    async def fold_turns(self, summary: str, turns: list[Turn]) -> str:
        raise AssertionError("the window was folded")


async def _seed(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [Member(G, MIA, username="mia"), Member(G, KIM, username="kim")])
    said = [
        (GENERAL, MIA, "my bees swarmed into the neighbour's apple tree", 30),
        (MODS, KIM, "mia's bees complaint: the neighbour filed a report", 20),
        (GENERAL, MIA, "the bees are back in their hive now", 3),
    ]
    await insert_messages(
        db_pool,
        [
            chat_message(
                None,
                text,
                guild_id=G,
                channel_id=channel,
                author_id=author,
                created_at=DAY - timedelta(days=days_ago),
            )
            for channel, author, text, days_ago in said
        ],
    )


def _toolbox(db_pool: asyncpg.Pool, telemetry: Telemetry) -> ReplyToolbox:
    async def learned(guild_id: int, user_id: int) -> list[str]:
        return ["Mia lives in Lisbon (learned 2026-08-30)."] if user_id == MIA else []

    sources = build_tool_sources(
        RecallService(db_pool), MemberDirectory(db_pool), NoContexts(), learned
    )
    return ReplyToolbox(sources, telemetry, budget_seconds=30)


async def test_search_tool_never_reads_a_channel_the_viewer_cannot(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _seed(db_pool)
    toolbox = _toolbox(db_pool, telemetry)
    member = toolbox.for_reply(G, Viewer.of_channels(MIA, {GENERAL}))
    moderator = toolbox.for_reply(G, Viewer.of_channels(KIM, {GENERAL, MODS}))

    seen_by_member = await member.run(ToolCall("search_memory", {"query": "bees neighbour"}))
    seen_by_moderator = await moderator.run(ToolCall("search_memory", {"query": "bees neighbour"}))

    assert "swarmed" in seen_by_member
    assert "filed a report" not in seen_by_member
    assert "filed a report" in seen_by_moderator
    [first, _] = telemetry.recent("tool_call")
    assert first["name"] == "search_memory" and first["guild_id"] == G and first["hits"] >= 1


async def test_search_tool_keeps_to_the_dates_and_member_asked(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _seed(db_pool)
    use = _toolbox(db_pool, telemetry).for_reply(G, Viewer.of_channels(MIA, {GENERAL, MODS}))
    recent_day = (DAY - timedelta(days=10)).date().isoformat()

    after = await use.run(ToolCall("search_memory", {"query": "bees", "after": recent_day}))
    by_kim = await use.run(ToolCall("search_memory", {"query": "bees", "member": "kim"}))

    assert "back in their hive" in after and "swarmed" not in after
    assert "filed a report" in by_kim and "swarmed" not in by_kim
    assert day_label((DAY - timedelta(days=3)).date()) in after


async def test_member_tools_answer_by_name_and_say_when_nobody_matches(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _seed(db_pool)
    use = _toolbox(db_pool, telemetry).for_reply(G, Viewer.of_channels(KIM, {GENERAL}))

    assert await use.run(ToolCall("member_memory", {"member": "@mia"})) == "Mia keeps bees."
    assert "Lisbon" in await use.run(ToolCall("learned_facts", {"member": "mia"}))
    assert "No member named 'zorvath'" in await use.run(
        ToolCall("learned_facts", {"member": "zorvath"})
    )


async def test_tools_out_of_time_answer_without_searching(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await _seed(db_pool)

    async def never_asked(guild_id: int, user_id: int) -> list[str]:
        raise AssertionError("a tool ran with no time left")

    sources = build_tool_sources(
        RecallService(db_pool), MemberDirectory(db_pool), NoContexts(), never_asked
    )
    use = ReplyToolbox(sources, telemetry, budget_seconds=0).for_reply(G, Viewer.everything())

    answer = await use.run(ToolCall("search_memory", {"query": "bees"}))

    assert "No time left" in answer
    assert telemetry.recent("tool_call")[0]["outcome"] == "no_time"


async def test_a_reply_offers_tools_bound_to_the_askers_viewer(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """A tool-capable model (scripted here) searches from inside the reply: what it finds is
    limited to the channels of the message's viewer."""
    await _seed(db_pool)
    provider = ScriptedProvider()

    async def model_that_searches(request: LLMRequest) -> str:
        assert request.tool_use is not None
        return await request.tool_use.run(ToolCall("search_memory", {"query": "bees neighbour"}))

    provider.script["reply"] = model_that_searches
    directory = MemberDirectory(db_pool)
    composer = ReplyComposer(
        memory=NoContexts(),
        llm=MemoryLLM(provider),
        windows=ConversationWindows(
            NeverFolds(),
            FixedClock(DAY),
            token_budget=2000,
            soft_decay=timedelta(minutes=10),
            hard_decay=timedelta(minutes=30),
            telemetry=telemetry,
        ),
        names=NameIndexCache(directory.all),
        member_rows=directory,
        config=ReplyConfig("Bot", "You are kind.", 4000, 2000, 0.3, 6, 1200),
        telemetry=telemetry,
        toolbox=_toolbox(db_pool, telemetry),
    )
    asked = IncomingMessage(
        G,
        GENERAL,
        999,
        KIM,
        "kim",
        "Bot, what happened with mia's bees?",
        viewer=Viewer.of_channels(KIM, {GENERAL}),
    )

    result = await composer.compose(asked)

    assert "swarmed" in result.text
    assert "filed a report" not in result.text
