"""The dashboard's view of a member (memory/views): a forgotten statement appears nowhere in
their fact history, not in the blobs before the forget, nor as the words of the forget."""

from __future__ import annotations

import asyncpg

from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.facts import FactsConfig, FactService
from memory.llm import MemoryLLM
from memory.views import MemberViews
from tests.memory.facts_support import scripted_memory_model

G = 100
ALICE = Member(G, 1, username="alice")


async def test_a_forgotten_statement_is_nowhere_in_the_history(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    facts = FactService(
        db_pool,
        MemoryLLM(scripted_memory_model()),
        FactsConfig.from_settings(Settings(_env_file=None)),
        telemetry=telemetry,
    )
    await facts.remember(G, ALICE, "alice likes pizza", actor_id=1)
    await facts.remember(G, ALICE, "alice has a cat", actor_id=1)
    await facts.forget(G, ALICE, "alice likes pizza", actor_id=1)

    history = await MemberViews(db_pool).history(G, ALICE.user_id, names=["alice"])

    assert [event.command for event in history] == ["forget", "remember", "remember"]
    assert all("pizza" not in f"{e.before} {e.after} {e.statement}" for e in history)
    assert history[0].statement is None  # the words of the forget were the forgotten words
    assert history[0].after == "Alice has a cat."
    assert history[1].statement == "alice has a cat"
