"""The closing batch of narratives is cut into prompts the model can take: a guild with many
members asked about on a day must not send one prompt larger than a small model's context."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from db import historical
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember
from memory.summaries import BuildStats, HistoricalSummarizer, SummaryConfig
from memory.summaries._packing import pack
from tests.memory.hierarchy_support import GUILD, TODAY, model


def test_pack_keeps_order_and_never_drops_an_item_larger_than_the_budget() -> None:
    assert pack([5, 5, 5, 20, 1], lambda n: n, 10) == [[5, 5], [5], [20], [1]]
    assert pack([1, 2], lambda n: n, None) == [[1, 2]]
    assert pack([], lambda n: n, 10) == []


async def test_a_closing_batch_over_the_prompt_limit_is_split_and_every_member_rolled(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    provider = model()
    provider.prompt_token_limit = 1_000  # a small local model: ~3,000 characters of prompt
    history = HistoricalSummarizer(
        db_pool, MemoryLLM(provider), SummaryConfig(), telemetry=telemetry
    )
    end = TODAY - timedelta(days=1)
    members: dict[int, tuple[PromptMember, list[str]]] = {
        100 + n: (PromptMember(user_id=100 + n, name=f"Member{n}"), []) for n in range(12)
    }
    days = {
        user_id: [
            (end - timedelta(days=k), f"Member{user_id - 100} did thing {k}. " * 8)
            for k in range(3)
        ]
        for user_id in members
    }
    rolled = await history.batch(GUILD, end, members, days, BuildStats())
    requests = [r for r in provider.requests if r.purpose == "historical_summary"]
    assert rolled == 12 and len(requests) > 1
    assert all(len(r.prompt) <= 3_000 for r in requests)
    assert sorted(m["user_id"] for r in requests for m in r.inputs["members"]) == sorted(members)
    for user_id in members:
        stored = await historical.get_historical(db_pool, GUILD, user_id, end)
        assert stored is not None and f"Member{user_id - 100} over 3 days" in stored[0]
