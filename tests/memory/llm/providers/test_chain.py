"""The provider chain: fallback, retries, rate limit, concurrency cap, timeouts, telemetry.

The remote provider here is a stand-in at the network edge (it fails, stalls or counts on
demand); the fallback target is the real offline provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from memory.core.telemetry import Telemetry
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    LLMError,
    LLMProvider,
    LLMQueueTimeout,
    LLMRateLimited,
    LLMRequest,
    LLMRequestRejected,
    LLMResponse,
    LLMUnavailable,
    ProviderChain,
    ProviderLimits,
    Purpose,
    RetryPolicy,
    track_providers,
)
from memory.llm.tasks import Intent
from tests.memory.llm.conftest import RecordingSleep


class EdgeProvider(LLMProvider):
    """A remote model as the chain sees it: scripted failures, latency, concurrency count."""

    name = "gemini"

    def __init__(self, *, latency: float = 0.0) -> None:
        self.latency = latency
        self.failures: list[LLMError | None] = []
        self.calls = 0
        self.active = 0
        self.peak = 0

    def model_for(self, purpose: Purpose) -> str:
        return "gemini-strong" if purpose == "daily_summary" else "gemini-cheap"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            failure = self.failures.pop(0) if self.failures else None
            if failure is not None:
                raise failure
            parsed = Intent(kind="none")
            return LLMResponse(
                text=parsed.model_dump_json(),
                parsed=parsed,
                provider="gemini",
                model=self.model_for(request.purpose),
                input_tokens=40,
                output_tokens=6,
            )
        finally:
            self.active -= 1


def _request(purpose: Purpose = "route", guild_id: int | None = 5) -> LLMRequest:
    return LLMRequest(
        purpose=purpose,
        prompt="p",
        schema=Intent,
        inputs={"text": "who is alice?", "bot_name": "Bot", "author_name": "bob"},
        guild_id=guild_id,
    )


def _chain(
    edge: EdgeProvider,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
    *,
    fallback: bool = True,
    limits: ProviderLimits | None = None,
    jitter: Callable[[], float] = lambda: 0.5,
    **policy: Any,
) -> ProviderChain:
    return ProviderChain(
        [edge, OfflineProvider()] if fallback else [edge],
        limits={"gemini": limits} if limits else None,
        policy=RetryPolicy(**{"max_retries": 3, "backoff_base": 1.0, **policy}),
        telemetry=telemetry,
        sleep=sleeps,
        jitter=jitter,
    )


async def test_success_emits_one_event_with_every_field(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider()
    response = await _chain(edge, telemetry, sleeps).complete(_request("daily_summary"))
    assert response.provider == "gemini" and response.retries == 0
    [event] = telemetry.recent("llm_call")
    assert event["outcome"] == "ok"
    assert event["provider"] == "gemini" and event["model"] == "gemini-strong"
    assert event["purpose"] == "daily_summary" and event["guild_id"] == 5
    assert event["input_tokens"] == 40 and event["output_tokens"] == 6
    assert event["retries"] == 0 and event["latency_ms"] >= 0


async def test_unavailable_provider_falls_back_to_offline(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider()
    edge.failures = [LLMUnavailable("503")] * 4
    response = await _chain(edge, telemetry, sleeps).complete(_request())
    assert response.provider == "offline"
    assert response.parsed == Intent(kind="whois", target="alice")
    assert edge.calls == 4  # first try + 3 retries
    assert sleeps.delays == [1.0, 2.0, 4.0]  # exponential, jitter pinned to x1
    first, second = telemetry.recent("llm_call")
    assert first["outcome"] == "fallback" and first["fallback_to"] == "offline"
    assert first["retries"] == 3 and "LLMUnavailable" in first["error"]
    assert second["outcome"] == "ok" and second["provider"] == "offline"
    assert second["fallback_from"] == "gemini"


async def test_jitter_spreads_backoff(telemetry: Telemetry, sleeps: RecordingSleep) -> None:
    edge = EdgeProvider()
    edge.failures = [LLMUnavailable("503"), LLMUnavailable("503")]
    values = iter([0.0, 1.0])
    await _chain(edge, telemetry, sleeps, jitter=lambda: next(values)).complete(_request())
    assert sleeps.delays == [0.5, 3.0]  # 1 x 0.5 and 2 x 1.5


async def test_rejected_request_is_not_retried(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider()
    edge.failures = [LLMRequestRejected("400 bad schema")]
    response = await _chain(edge, telemetry, sleeps).complete(_request())
    assert edge.calls == 1 and sleeps.delays == []
    assert response.provider == "offline"


async def test_long_retry_after_skips_to_fallback(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    """A daily quota that resets in an hour is not worth waiting for on a chat reply."""
    edge = EdgeProvider()
    edge.failures = [LLMRateLimited("quota", retry_after=3600)]
    response = await _chain(edge, telemetry, sleeps, backoff_max=30).complete(_request())
    assert edge.calls == 1 and sleeps.delays == []
    assert response.provider == "offline"


async def test_last_provider_failure_raises_typed_error(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider()
    edge.failures = [LLMRateLimited("429")] * 2
    with pytest.raises(LLMRateLimited):
        await _chain(edge, telemetry, sleeps, fallback=False, max_retries=1).complete(_request())
    [event] = telemetry.recent("llm_call")
    assert event["outcome"] == "error" and event["retries"] == 1


async def test_timeout_counts_as_transient(telemetry: Telemetry, sleeps: RecordingSleep) -> None:
    edge = EdgeProvider(latency=5)
    with pytest.raises(LLMUnavailable, match="no answer within"):
        await _chain(edge, telemetry, sleeps, fallback=False, max_retries=1, timeout=0.05).complete(
            _request()
        )
    assert edge.calls == 2


async def test_concurrency_cap_limits_calls_in_flight(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider(latency=0.02)
    chain = _chain(edge, telemetry, sleeps, limits=ProviderLimits(max_concurrency=2))
    results = await asyncio.gather(*[chain.complete(_request()) for _ in range(8)])
    assert all(r.provider == "gemini" for r in results)
    assert edge.peak == 2


async def test_rate_limit_queue_timeout_falls_back(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    """Three requests per minute: the fourth waits for a slot, gives up, offline answers."""
    edge = EdgeProvider()
    chain = _chain(
        edge,
        telemetry,
        sleeps,
        limits=ProviderLimits(requests_per_minute=3),
        queue_timeout=0.1,
    )
    answered = [(await chain.complete(_request())).provider for _ in range(4)]
    assert answered == ["gemini", "gemini", "gemini", "offline"]
    assert edge.calls == 3
    assert "LLMQueueTimeout" in telemetry.recent("llm_call")[-2]["error"]
    assert issubclass(LLMQueueTimeout, LLMRateLimited) and not LLMQueueTimeout.retryable


async def test_rate_limit_is_per_model(telemetry: Telemetry, sleeps: RecordingSleep) -> None:
    edge = EdgeProvider()
    limits = ProviderLimits(requests_per_minute=60, model_requests_per_minute={"gemini-strong": 1})
    chain = _chain(edge, telemetry, sleeps, fallback=False, limits=limits, queue_timeout=0.1)
    await chain.complete(_request("daily_summary"))
    with pytest.raises(LLMQueueTimeout):
        await chain.complete(_request("daily_summary"))
    await chain.complete(_request("route"))  # the cheap model has its own budget
    assert edge.calls == 2


async def test_per_purpose_chain_skips_remote(telemetry: Telemetry, sleeps: RecordingSleep) -> None:
    edge = EdgeProvider()
    chain = ProviderChain(
        [edge, OfflineProvider()],
        chains={"route": ["offline"]},
        telemetry=telemetry,
        sleep=sleeps,
    )
    assert (await chain.complete(_request("route"))).provider == "offline"
    assert (await chain.complete(_request("daily_summary"))).provider == "gemini"
    assert edge.calls == 1


async def test_cancelled_caller_releases_its_slot(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    """A reply budget that runs out cancels the call; the next call must still get a slot."""
    edge = EdgeProvider(latency=5)
    chain = _chain(edge, telemetry, sleeps, limits=ProviderLimits(max_concurrency=1))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(chain.complete(_request()), 0.05)
    assert telemetry.recent("llm_call")[-1]["outcome"] == "cancelled"
    edge.latency = 0
    response = await asyncio.wait_for(chain.complete(_request()), 1)
    assert response.provider == "gemini"


async def test_crashing_provider_falls_back(telemetry: Telemetry, sleeps: RecordingSleep) -> None:
    class Broken(EdgeProvider):
        async def complete(self, request: LLMRequest) -> LLMResponse:
            raise RuntimeError("bug in provider")

    response = await _chain(Broken(), telemetry, sleeps).complete(_request())
    assert response.provider == "offline"


def test_unknown_provider_in_chain_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="unknown providers"):
        ProviderChain([OfflineProvider()], chains={"route": ["gemini"]}, telemetry=Telemetry())


async def test_callers_can_tell_a_fallback_answer(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    """A daily summary written by the offline fallback should not be stored as final."""
    edge = EdgeProvider()
    chain = _chain(edge, telemetry, sleeps)
    with track_providers() as answered:
        await chain.complete(_request())
    assert answered == ["gemini"]
    edge.failures = [LLMRequestRejected("400")]
    with track_providers() as answered:
        await asyncio.gather(chain.complete(_request()), chain.complete(_request()))
    assert sorted(answered) == ["gemini", "offline"]
    await chain.complete(_request())  # outside a block nothing is collected
    assert sorted(answered) == ["gemini", "offline"]


async def test_daily_purposes_get_their_own_timeout(
    telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    edge = EdgeProvider(latency=0.1)
    chain = _chain(
        edge,
        telemetry,
        sleeps,
        fallback=False,
        max_retries=0,
        timeout=0.02,
        purpose_timeouts={"daily_summary": 2.0},
    )
    assert (await chain.complete(_request("daily_summary"))).provider == "gemini"
    with pytest.raises(LLMUnavailable, match=r"no answer within 0\.02s"):
        await chain.complete(_request("route"))
