"""A model that answers prose to a remember must not wipe a member's facts (the real openai SDK
against a loopback chat-completions server): the merge is checked, the deterministic merge
stands in, and nothing unstored is acknowledged."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from db.facts import get_facts
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.facts import FactsConfig, FactService, FactsUnavailable
from memory.llm import MemoryLLM, OfflineProvider
from memory.llm.providers import ProviderChain, RetryPolicy
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text

G = 100
ALICE = Member(G, 1, username="alice")
OLD = "Alice lives in Berlin. Alice has a cat named Tom. Alice plays the violin."


@pytest.fixture
async def chain(fake_http: FakeHTTPServer, telemetry: Telemetry) -> AsyncIterator[ProviderChain]:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )

    async def no_sleep(_: float) -> None:
        return None

    chain = ProviderChain(
        [provider],
        policy=RetryPolicy(max_retries=0, bad_output_retries=1, timeout=5),
        telemetry=telemetry,
        sleep=no_sleep,
    )
    try:
        yield chain
    finally:
        await chain.aclose()


async def _seed(db_pool: asyncpg.Pool) -> None:
    await db_pool.execute(
        "INSERT INTO user_facts (guild_id, user_id, blob, version) VALUES ($1, $2, $3, 1)",
        G,
        ALICE.user_id,
        OLD,
    )


async def test_a_prose_answer_keeps_every_fact(
    db_pool: asyncpg.Pool, telemetry: Telemetry, chain: ProviderChain, fake_http: FakeHTTPServer
) -> None:
    await _seed(db_pool)
    prose = "Sure! I've noted that Alice is a nurse now."
    fake_http.queue(*[Reply(body=openai_text(prose)) for _ in range(4)])
    facts = FactService(
        db_pool,
        MemoryLLM(chain),
        FactsConfig(),
        telemetry=telemetry,
        fallback=MemoryLLM(OfflineProvider()),
    )
    change = await facts.remember(G, ALICE, "alice is a nurse", actor_id=2)
    stored = await _blob(db_pool)
    for sentence in ("lives in Berlin", "cat named Tom", "plays the violin", "nurse"):
        assert sentence in stored, stored
    assert "Sure!" not in stored and change.changed
    assert [e["lost"] for e in telemetry.recent("facts_merge_rejected")] == [3]


async def test_without_a_fallback_nothing_is_stored_or_acknowledged(
    db_pool: asyncpg.Pool, telemetry: Telemetry, chain: ProviderChain, fake_http: FakeHTTPServer
) -> None:
    await _seed(db_pool)
    fake_http.queue(*[Reply(body=openai_text("Got it!")) for _ in range(4)])
    facts = FactService(db_pool, MemoryLLM(chain), FactsConfig(), telemetry=telemetry)
    with pytest.raises(FactsUnavailable):
        await facts.remember(G, ALICE, "alice is a nurse", actor_id=2)
    assert await _blob(db_pool) == OLD


async def _blob(pool: asyncpg.Pool) -> str:
    record = await get_facts(pool, G, ALICE.user_id)
    assert record is not None, "no facts stored about Alice"
    return record.blob
