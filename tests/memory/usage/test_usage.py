"""LLM usage written as calls complete, priced per model, and LLM_DAILY_TOKEN_BUDGET: once the
day's tokens are spent, background work (closing days) waits while replies go on."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, OfflineProvider
from memory.llm.providers import LLMProvider, LLMRequest, LLMResponse, LLMUnavailable, ProviderChain
from memory.wiring import open_memory
from tests.memory.jobs.test_jobs import say

G = 5150


class MeteredModel(LLMProvider):
    """The offline provider's answers, billed like a remote model: 600 tokens in, 100 out."""

    name = "openai"

    def __init__(self) -> None:
        self._offline = OfflineProvider()

    def model_for(self, purpose: str) -> str:
        return "local-model"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        answer = await self._offline.complete(request)
        return replace(
            answer,
            provider="",
            model="",
            input_tokens=600,
            output_tokens=100,
            tokens_estimated=False,
        )


def _settings(tmp_path: Path, **values: Any) -> Settings:
    return Settings(
        _env_file=None, log_dir=tmp_path / "logs", llm_prices="local-model=1/2", **values
    )


async def _closed(pool: asyncpg.Pool, day: date) -> bool:
    return bool(
        await pool.fetchval(
            "SELECT count(*) FROM summary_days WHERE guild_id=$1 AND day=$2", G, day
        )
    )


async def test_calls_are_counted_by_purpose_and_model_and_priced(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    now = datetime.now(UTC)  # read per test: a run may cross midnight UTC
    telemetry = Telemetry()
    llm = MemoryLLM(ProviderChain([MeteredModel()], telemetry=telemetry))
    yesterday = now.date() - timedelta(days=1)
    await say(db_pool, G, yesterday, "I adopted a cat called Miso")
    async with open_memory(
        _settings(tmp_path), clock=FixedClock(now), pool=db_pool, telemetry=telemetry, llm=llm
    ) as memory:
        await memory.manager.summarize_day(G, yesterday, force=True)
        calls = len([e for e in telemetry.recent("llm_call") if e["outcome"] == "ok"])
        text = await memory.operations.usage_text(guild_id=G, days=1)
        assert "Estimated LLM cost today (this process): $" in memory.operations.stats_text()
    [_, columns, row, total] = text.splitlines()
    assert columns.split() == [
        "day",
        "purpose",
        "model",
        "calls",
        "failed",
        "input",
        "output",
        "est.",
        "cost",
    ]
    day, purpose, model, n, failed, tokens_in, tokens_out, cost = row.split()
    assert (day, purpose, model) == (now.date().isoformat(), "daily_summary", "local-model")
    assert failed == "0"
    assert int(n) == calls and tokens_in == f"{600 * calls:,}" and tokens_out == f"{100 * calls:,}"
    assert cost == f"${calls * (600 * 1 + 100 * 2) / 1e6:.4f}"
    assert total.split()[-1] == cost


async def test_a_spent_budget_holds_background_work_but_not_replies(
    db_pool: asyncpg.Pool, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    now = datetime.now(UTC)  # read per test: a run may cross midnight UTC
    caplog.set_level(logging.WARNING, logger="memory.usage")
    telemetry = Telemetry()
    chain = ProviderChain([MeteredModel()], telemetry=telemetry)
    days = [now.date() - timedelta(days=n) for n in (1, 2)]
    for day in days:
        await say(db_pool, G, day, f"the climbing gym opened on {day}")
    settings = _settings(tmp_path, llm_daily_token_budget=700)
    async with open_memory(
        settings, clock=FixedClock(now), pool=db_pool, telemetry=telemetry, llm=MemoryLLM(chain)
    ) as memory:
        close_day = memory.worker.handlers.close_day
        await close_day(G, days[0])  # 700 tokens: the budget is spent with this one
        assert await _closed(db_pool, days[0])
        before = len(telemetry.recent("llm_call"))
        assert await close_day(G, days[1]) is None
        assert not await _closed(db_pool, days[1])  # it waits for tomorrow (it stays due)
        with pytest.raises(LLMUnavailable, match="daily token budget"):
            await chain.complete(LLMRequest(purpose="daily_summary", prompt="x"))
        assert len(telemetry.recent("llm_call")) == before  # nothing was asked of the model
        reply = await chain.complete(
            LLMRequest(purpose="reply", prompt="hi", inputs={"message": "hi", "author": "bob"})
        )
        assert reply.provider == "openai" and reply.input_tokens == 600
    told = [r for r in caplog.records if "LLM_DAILY_TOKEN_BUDGET reached" in r.getMessage()]
    assert len(told) == 1  # logged once
