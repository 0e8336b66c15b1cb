"""FactService on a real PostgreSQL: merges, forgetting that sticks, history, undo, limits and
the failure paths that must never overwrite a member's memory."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from db.facts import get_facts, get_forgotten, get_history
from memory.core.events import EventBus, MemberChanged, StatementForgotten
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.facts import FactsConfig, FactService, FactsFull, FactsUnavailable, StatementTooLong
from memory.facts._fact_service import OPTIMISTIC_ATTEMPTS
from memory.facts._text import covers, strip_forgotten
from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.providers import LLMProvider, LLMRequest
from memory.llm.tasks import TextOutput
from tests.memory.facts_support import merge, scripted_memory_model

G = 100
ALICE = Member(G, 1, username="alice")
BOB = Member(G, 2, username="bob")


def service(
    db_pool: asyncpg.Pool,
    telemetry: Telemetry,
    provider: LLMProvider | None = None,
    events: EventBus | None = None,
    **settings: Any,
) -> FactService:
    provider = provider or scripted_memory_model()
    return FactService(
        db_pool,
        MemoryLLM(provider),
        FactsConfig.from_settings(Settings(_env_file=None, **settings)),
        telemetry=telemetry,
        events=events,
    )


async def test_remember_merges_and_records_history(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    facts = service(db_pool, telemetry)
    first = await facts.remember(G, ALICE, "alice likes tea", actor_id=2, source_message_id=77)
    second = await facts.remember(G, ALICE, "alice has a cat", actor_id=1, command="remember x")

    assert second.new_blob == "Alice likes tea. Alice has a cat."
    assert (first.version, second.version) == (1, 2)
    history = await get_history(db_pool, G, 1)
    assert [h.command for h in history] == ["remember x", "remember"]
    assert history[1].old_blob == "" and history[1].new_blob == "Alice likes tea."
    assert history[1].actor_id == 2 and history[1].source_message_id == 77
    assert history[1].statement == "alice likes tea"
    assert history[0].old_blob == "Alice likes tea."
    assert [e["outcome"] for e in telemetry.recent("remember")] == ["ok", "ok"]


async def test_forget_reports_found_and_not_found(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    facts = service(db_pool, telemetry)
    await facts.remember(G, ALICE, "alice likes pizza", actor_id=1)
    await facts.remember(G, ALICE, "alice has a cat", actor_id=1)

    found = await facts.forget(G, ALICE, "alice likes pizza", actor_id=1)
    missing = await facts.forget(G, ALICE, "alice plays chess", actor_id=1)

    assert found.found and found.new_blob == "Alice has a cat."
    assert not missing.found and not missing.changed
    assert await facts.blob(G, 1) == "Alice has a cat."
    # both statements are recorded so the summaries cannot bring them back either
    assert await get_forgotten(db_pool, G, 1) == ["alice likes pizza", "alice plays chess"]
    assert [h.command for h in await get_history(db_pool, G, 1)] == [
        "forget",
        "remember",
        "remember",
    ]


async def test_forgetting_sticks_until_remembered_explicitly(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    provider = scripted_memory_model()
    facts = service(db_pool, telemetry, provider)
    await facts.remember(G, ALICE, "alice likes pizza", actor_id=1)
    await facts.forget(G, ALICE, "alice likes pizza", actor_id=1)

    await facts.remember(G, ALICE, "alice has a cat", actor_id=2)
    assert provider.requests[-1].inputs["forgotten"] == ["alice likes pizza"]
    assert "pizza" not in await facts.blob(G, 1)

    again = await facts.remember(G, ALICE, "Alice likes pizza!", actor_id=1)
    assert again.unforgotten == 1
    assert provider.requests[-1].inputs["forgotten"] == []
    assert await facts.blob(G, 1) == "Alice has a cat. Alice likes pizza!"
    assert await get_forgotten(db_pool, G, 1) == []


async def test_a_model_ignoring_the_forgotten_constraint_is_overruled(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    def stubborn(request: LLMRequest) -> TextOutput:  # re-adds what it was trained on
        return TextOutput(text="Alice likes pizza. " + merge(request).text)

    facts = service(db_pool, telemetry, scripted_memory_model(remember=stubborn))
    await facts.forget(G, ALICE, "alice likes pizza", actor_id=1)
    change = await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    assert change.new_blob == "Alice has a cat."


async def test_a_paraphrased_forgotten_fact_is_overruled_too(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    def rephrasing(request: LLMRequest) -> TextOutput:  # the forgotten fact, reworded
        return TextOutput(text=merge(request).text + " She really liked pizza.")

    facts = service(db_pool, telemetry, scripted_memory_model(remember=rephrasing))
    await facts.forget(G, ALICE, "alice likes pizza", actor_id=1)
    change = await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    assert change.new_blob == "Alice has a cat."


async def test_oversize_statement_rejected_with_limit(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    provider = scripted_memory_model()
    facts = service(db_pool, telemetry, provider, fact_statement_max_chars=20)
    with pytest.raises(StatementTooLong) as caught:
        await facts.remember(G, ALICE, "alice " + "likes tea " * 5, actor_id=1)
    assert caught.value.limit == 20 and "20" in str(caught.value)
    assert provider.calls["remember"] == 0
    assert await get_facts(db_pool, G, 1) is None


async def test_blob_over_cap_is_retried_tighter_then_refused(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    limits: list[int] = []

    def verbose(request: LLMRequest) -> TextOutput:
        limits.append(request.inputs["max_chars"])
        return TextOutput(text="x" * 201)

    facts = service(
        db_pool, telemetry, scripted_memory_model(remember=verbose), facts_max_chars=200
    )
    with pytest.raises(FactsFull) as caught:
        await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    assert caught.value.limit == 200
    assert limits == [200, 160]
    assert await get_facts(db_pool, G, 1) is None


async def test_llm_failure_never_overwrites(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    provider = scripted_memory_model()
    facts = service(db_pool, telemetry, provider)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    provider.fail("remember", "forget")

    with pytest.raises(FactsUnavailable):
        await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    with pytest.raises(FactsUnavailable):
        await facts.forget(G, ALICE, "alice likes tea", actor_id=1)

    assert await facts.blob(G, 1) == "Alice likes tea."
    assert len(await get_history(db_pool, G, 1)) == 1
    assert await get_forgotten(db_pool, G, 1) == []


async def test_empty_merge_is_not_a_wipe(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    facts = service(db_pool, telemetry)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    blank = service(
        db_pool, telemetry, scripted_memory_model(remember=lambda r: TextOutput(text=""))
    )
    with pytest.raises(FactsUnavailable):
        await blank.remember(G, ALICE, "alice has a cat", actor_id=1)
    assert await facts.blob(G, 1) == "Alice likes tea."


async def test_failed_read_never_becomes_an_overwrite(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    provider = scripted_memory_model()
    facts = service(db_pool, telemetry, provider)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    # The table is briefly unreadable (a real database error, not a mock).
    await db_pool.execute("ALTER TABLE user_facts RENAME TO user_facts_away")
    try:
        with pytest.raises(Exception, match="user_facts"):
            await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    finally:
        await db_pool.execute("ALTER TABLE user_facts_away RENAME TO user_facts")
    assert provider.calls["remember"] == 1  # no merge of an empty blob was even attempted
    assert await facts.blob(G, 1) == "Alice likes tea."


async def test_stale_read_is_merged_again_not_stored(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Another process writes between our read and our write: our merge is redone on the fresh
    blob, so both facts survive."""
    other = service(db_pool, telemetry)
    interfered = False

    async def racing_merge(request: LLMRequest) -> TextOutput:
        nonlocal interfered
        if request.inputs["statement"] == "alice has a cat" and not interfered:
            interfered = True
            await other.remember(G, ALICE, "alice plays chess", actor_id=9)
        return merge(request)

    facts = service(db_pool, telemetry, scripted_memory_model(remember=racing_merge))
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    change = await facts.remember(G, ALICE, "alice has a cat", actor_id=1)

    assert change.new_blob == "Alice likes tea. Alice plays chess. Alice has a cat."
    assert [e["op"] for e in telemetry.recent("facts_conflict")] == ["facts_conflict"]


async def test_constant_races_end_in_one_locked_attempt(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Another process wins every optimistic attempt: the last attempt holds the row lock."""
    other = service(db_pool, telemetry)
    calls = 0

    async def always_raced(request: LLMRequest) -> TextOutput:
        nonlocal calls
        calls += 1
        if calls <= OPTIMISTIC_ATTEMPTS:
            await other.remember(G, ALICE, f"alice won race {calls}", actor_id=9)
        return merge(request)

    facts = service(db_pool, telemetry, scripted_memory_model(remember=always_raced))
    change = await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    assert change.new_blob == (
        "Alice won race 1. Alice won race 2. Alice won race 3. Alice has a cat."
    )
    assert len(telemetry.recent("facts_conflict")) == OPTIMISTIC_ATTEMPTS


async def test_concurrent_remembers_all_survive(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """50 remembers about one member at once, with the offline provider: none is lost."""
    facts = service(db_pool, telemetry, OfflineProvider(), facts_max_chars=5000)
    await asyncio.gather(
        *(facts.remember(G, ALICE, f"alice knows fact {n}", actor_id=1) for n in range(50))
    )
    blob = await facts.blob(G, 1)
    assert all(f"fact {n}." in blob for n in range(50))
    record = await get_facts(db_pool, G, 1)
    assert record is not None and record.version == 50
    assert len(await get_history(db_pool, G, 1, limit=100)) == 50


async def test_two_services_racing_lose_nothing(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    """Two processes (two services, no shared asyncio lock) serialise through the version."""
    first = service(db_pool, telemetry, OfflineProvider(), facts_max_chars=5000)
    second = service(db_pool, telemetry, OfflineProvider(), facts_max_chars=5000)
    await asyncio.gather(
        *(
            (first if n % 2 else second).remember(G, ALICE, f"alice knows fact {n}", actor_id=1)
            for n in range(10)
        )
    )
    blob = await first.blob(G, 1)
    assert all(f"fact {n}." in blob for n in range(10))


async def test_undo_walks_back_and_restores_forgotten(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    facts = service(db_pool, telemetry)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    await facts.forget(G, ALICE, "alice likes tea", actor_id=1, command="/forget alice likes tea")

    undone = await facts.undo(G, 1, actor_id=5, command="/memory undo")
    assert undone is not None and undone.new_blob == "Alice likes tea. Alice has a cat."
    assert await get_forgotten(db_pool, G, 1) == []  # undoing a forget lifts it
    second = await facts.undo(G, 1, actor_id=5)
    assert second is not None and second.new_blob == "Alice likes tea."
    third = await facts.undo(G, 1, actor_id=5)
    assert third is not None and third.new_blob == ""
    assert await facts.undo(G, 1, actor_id=5) is None

    history = await get_history(db_pool, G, 1)
    assert history[0].command == "undo" and history[0].actor_id == 5
    assert [h.operation for h in history] == ["undo"] * 3 + ["forget", "remember", "remember"]
    assert history[2].command == "/memory undo"
    assert history[0].reverts_id == history[-1].id  # the first remember


async def test_every_change_is_told_even_past_a_broken_listener(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    seen: list[tuple[int, int]] = []
    forgotten: list[str] = []

    def broken(changed: MemberChanged) -> None:
        raise RuntimeError("broken cache")

    async def invalidate(changed: MemberChanged) -> None:
        seen.append((changed.guild_id, changed.user_id))

    events = EventBus()
    events.subscribe(MemberChanged, broken)  # before the others: they must still hear
    events.subscribe(MemberChanged, invalidate)
    events.subscribe(StatementForgotten, lambda told: forgotten.append(told.statement))
    facts = service(db_pool, telemetry, events=events)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    await facts.forget(G, ALICE, "alice likes tea", actor_id=1)
    await facts.undo(G, 1, actor_id=1)
    assert seen == [(G, 1)] * 3
    assert forgotten == ["alice likes tea"]
    assert await facts.blob(G, 1) == "Alice likes tea."  # the broken cache undid nothing


async def test_guilds_do_not_share_memories(db_pool: asyncpg.Pool, telemetry: Telemetry) -> None:
    facts = service(db_pool, telemetry)
    await facts.remember(G, ALICE, "alice likes tea", actor_id=1)
    other_guild_alice = Member(G + 1, 1, username="alice")
    await facts.remember(G + 1, other_guild_alice, "alice hates tea", actor_id=1)
    await facts.forget(G + 1, other_guild_alice, "alice hates tea", actor_id=1)
    assert await facts.blob(G, 1) == "Alice likes tea."
    assert await facts.blob(G + 1, 1) == ""
    assert await get_forgotten(db_pool, G, 1) == []


def test_statement_matching_helpers() -> None:
    assert covers("Alice likes pizza a lot!", "alice likes pizza")
    assert not covers("alice likes sushi", "alice likes pizza")
    assert strip_forgotten("Alice likes pizza. Alice has a cat.", ["alice likes pizza"]) == (
        "Alice has a cat."
    )
