"""Usage counts every attempt (issue 33): a server refusing every request shows up in
`memorybot usage` with its failed attempts and their error class, the offline provider's tokens
are estimated with the bench's tokenizer and marked as estimates, and the daily token budget
counts only what servers reported."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db.usage import UsageRow, add_usage, tokens_on
from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, OfflineProvider
from memory.llm.offline import count_tokens, estimated_tokens, tokenizer_name
from memory.llm.providers import (
    LLMProvider,
    LLMRequest,
    LLMResponse,
    LLMUnavailable,
    ProviderChain,
    RetryPolicy,
)
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from memory.wiring import open_memory
from tests.memory.jobs.test_jobs import say
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import FakeHTTPServer, Reply

G = 3301


def _settings(tmp_path: Path, **values: Any) -> Settings:
    return Settings(_env_file=None, log_dir=tmp_path / "logs", llm_prices="llama3.1=1/2", **values)


@pytest.fixture
async def refusing_server(fake_http: FakeHTTPServer) -> AsyncIterator[OpenAICompatibleProvider]:
    """A local OpenAI-compatible server that answers every request with a 503."""
    fake_http.responder = lambda _: Reply(
        status=503, body={"error": {"message": "the model is still loading"}}
    )
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )
    try:
        yield provider
    finally:
        await provider.aclose()


def _rows(text: str) -> dict[tuple[str, str], list[str]]:
    """The usage table's lines by (purpose, model)."""
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("total"))
    return {(line.split()[1], line.split()[2]): line.split() for line in lines[2:end]}


def _attempt_lines(text: str) -> list[list[str]]:
    """The lines under 'attempts without an answer', split."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("attempts without"))
    return [line.split() for line in lines[start + 2 : -1]]


async def test_a_refusing_server_shows_its_failed_attempts_and_their_error_class(
    db_pool: asyncpg.Pool,
    tmp_path: Path,
    refusing_server: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
) -> None:
    now = datetime.now(UTC)  # read per test: a run may cross midnight UTC
    yesterday = now.date() - timedelta(days=1)
    telemetry = Telemetry()
    chain = ProviderChain(
        [refusing_server, OfflineProvider()],
        policy=RetryPolicy(max_retries=2),  # three attempts, then the offline answer
        telemetry=telemetry,
        sleep=RecordingSleep(),
    )
    await say(db_pool, G, yesterday, "I adopted a cat called Miso and she sleeps all day")
    async with open_memory(
        _settings(tmp_path),
        clock=FixedClock(now),
        pool=db_pool,
        telemetry=telemetry,
        llm=MemoryLLM(chain),
    ) as memory:
        await memory.manager.summarize_day(G, yesterday, force=True)
        text = await memory.operations.usage_text(guild_id=G, days=1)
        stats = memory.operations.stats_text()
    events = telemetry.recent("llm_call")
    fell_back = [e for e in events if e["provider"] == "openai" and e["outcome"] == "fallback"]
    answered = [e for e in events if e["provider"] == "offline" and e["outcome"] == "ok"]
    assert fell_back and len(answered) == len(fell_back)
    sent = len(fake_http.requests)
    assert sent == 3 * len(fell_back)  # every request the server refused

    rows = _rows(text)
    purpose = fell_back[0]["purpose"]
    # day purpose model calls failed input output cost: no answer, every attempt counted
    assert rows[(purpose, "llama3.1")][3:6] == ["0", str(sent), "0"]
    offline = rows[(purpose, "offline")]
    assert offline[3:5] == [str(len(answered)), "0"]
    assert offline[5].startswith("~") and int(offline[5][1:].replace(",", "")) > 0
    assert offline[6].startswith("~") and offline[7] == "$0.0000"
    assert any(line.startswith("~: our estimate") for line in text.splitlines())
    assert _attempt_lines(text) == [
        [now.date().isoformat(), purpose, "llama3.1", "fallback", "LLMUnavailable", str(sent)],
    ]
    assert f"{sent} attempts got no answer" in stats


async def test_retried_cancelled_and_degraded_attempts_are_counted_and_skips_are_not(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    now = datetime.now(UTC)  # read per test: a run may cross midnight UTC
    telemetry = Telemetry()
    flaky = _Flaky()
    chain = ProviderChain([flaky, OfflineProvider()], telemetry=telemetry, sleep=RecordingSleep())
    async with open_memory(
        _settings(tmp_path),
        clock=FixedClock(now),
        pool=db_pool,
        telemetry=telemetry,
        llm=MemoryLLM(chain),
    ) as memory:
        flaky.failures = [LLMUnavailable("503"), LLMUnavailable("503")]
        await chain.complete(_route())  # two failed tries, then the answer
        flaky.hold = asyncio.Event()
        call = asyncio.create_task(chain.complete(_route()))
        await flaky.waiting.wait()
        call.cancel()  # the member's reply budget ran out mid-request
        with pytest.raises(asyncio.CancelledError):
            await call
        # The task layer's verdict on an answer it replaced with the offline one.
        telemetry.emit(
            "llm_call",
            outcome="degraded",
            provider="openai",
            model="llama3.1",
            purpose="route",
            guild_id=G,
            reason="unusable_output",
        )
        # A provider whose breaker was open sent nothing: not an attempt.
        telemetry.emit(
            "llm_call",
            outcome="skipped",
            provider="openai",
            model="llama3.1",
            purpose="route",
            guild_id=G,
            retries=0,
            error="breaker open",
            attempt_errors=[],
        )
        text = await memory.operations.usage_text(guild_id=G, days=1)
    rows = _rows(text)
    # One answer; three tries without one (two retried, one cancelled).
    assert rows[("route", "llama3.1")][3:7] == ["1", "3", "40", "6"]
    day = now.date().isoformat()
    assert _attempt_lines(text) == [
        [day, "route", "llama3.1", "cancelled", "CancelledError", "1"],
        [day, "route", "llama3.1", "degraded", "unusable_output", "1"],
        [day, "route", "llama3.1", "retried", "LLMUnavailable", "2"],
    ]


async def test_the_token_budget_counts_what_servers_reported_not_estimates(
    db_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    now = datetime.now(UTC)  # read per test: a run may cross midnight UTC
    day = now.date()
    await add_usage(
        db_pool,
        [
            UsageRow(day, G, "daily_summary", "openai", "llama3.1", 1, 600, 100),
            # Our own count for an answer no server billed (a provider other than offline).
            UsageRow(day, G, "daily_summary", "local", "x", 3, 9000, 900, estimated=True),
        ],
    )
    assert await tokens_on(db_pool, day) == 700

    # The offline provider's estimates are shown, and never hold background work.
    telemetry = Telemetry()
    chain = ProviderChain([OfflineProvider()], telemetry=telemetry)
    days = [day - timedelta(days=n) for n in (1, 2)]
    for past in days:
        await say(db_pool, G + 1, past, f"the climbing gym on fifth street opened on {past}")
    settings = _settings(tmp_path, llm_daily_token_budget=800)
    async with open_memory(
        settings, clock=FixedClock(now), pool=db_pool, telemetry=telemetry, llm=MemoryLLM(chain)
    ) as memory:
        for past in days:
            await memory.worker.handlers.close_day(G + 1, past)
        text = await memory.operations.usage_text(guild_id=G + 1, days=1)
        assert not await memory.token_budget.exhausted()
    closed = await db_pool.fetch("SELECT day FROM summary_days WHERE guild_id = $1", G + 1)
    assert {row["day"] for row in closed} == set(days)
    offline = _rows(text)[("daily_summary", "offline")]
    assert offline[5].startswith("~") and int(offline[5][1:].replace(",", "")) > 100
    assert await tokens_on(db_pool, day) == 700


async def test_offline_tokens_are_counted_with_the_bench_tokenizer() -> None:
    assert tokenizer_name() == "o200k_base (bpe-openai)"  # the `bench` extra is installed
    text = "Miso the cat sleeps all day; <|endoftext|> is just text here."
    assert estimated_tokens(text) == count_tokens(text) > 0
    answer = await OfflineProvider().complete(
        LLMRequest(
            purpose="route",
            prompt=f"<message>{text}</message>",
            inputs={"text": text, "bot_name": "Bot"},
        )
    )
    assert answer.tokens_estimated
    assert answer.input_tokens == count_tokens(f"<message>{text}</message>")
    assert answer.output_tokens == count_tokens(answer.text)


def _route() -> LLMRequest:
    return LLMRequest(
        purpose="route", prompt="p", inputs={"text": "hi", "bot_name": "Bot"}, guild_id=G
    )


class _Flaky(LLMProvider):
    """A remote model as the chain sees it: scripted failures, or a request that hangs."""

    name = "openai"

    def __init__(self) -> None:
        self.failures: list[LLMUnavailable] = []
        self.hold: asyncio.Event | None = None
        self.waiting = asyncio.Event()
        self._offline = OfflineProvider()

    def model_for(self, purpose: str) -> str:
        return "llama3.1"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if self.failures:
            raise self.failures.pop(0)
        if self.hold is not None:
            self.waiting.set()
            await self.hold.wait()
        answer = await self._offline.complete(request)
        return replace(
            answer,
            provider="",
            model="",
            input_tokens=40,
            output_tokens=6,
            tokens_estimated=False,
        )
