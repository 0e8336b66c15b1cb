"""The circuit breaker per (provider, model): a dead endpoint costs one refused connection, then
is skipped for a backoff that doubles; one probe at a time when it half-opens.

The endpoint is a closed local port and the client the real openai SDK; connection attempts are
counted at httpx2's transport, and time is a fake clock (no wall-clock asserts)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memory.core.settings import load_settings
from memory.core.telemetry import Telemetry
from memory.llm import breaker_report
from memory.llm._factory import build_provider_chain, provider_limits
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    BreakerPolicy,
    CircuitBreakers,
    LLMRequest,
    LLMRequestRejected,
    LLMResponse,
    LLMTimedOut,
    LLMUnavailable,
    LLMUnreachable,
    ProviderChain,
    ProviderLimits,
    RetryPolicy,
    breaker_listener,
    is_local_endpoint,
)
from memory.llm.providers.openai_compat import OpenAICompatibleProvider, openai_client
from memory.llm.tasks import Intent
from tests.dead_endpoint import ConnectionCount
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _whois() -> LLMRequest:
    return LLMRequest(
        purpose="route",
        prompt="who is alice?",
        schema=Intent,
        inputs={"text": "who is alice?", "bot_name": "Bot", "author_name": "bob"},
    )


def _chain(
    provider: OpenAICompatibleProvider, telemetry: Telemetry, clock: FakeClock
) -> ProviderChain:
    return ProviderChain(
        [provider, OfflineProvider()],
        policy=RetryPolicy(max_retries=3, backoff_base=0.25, timeout=5),
        telemetry=telemetry,
        sleep=RecordingSleep(),
        breakers=CircuitBreakers(clock=clock, on_change=breaker_listener(telemetry)),
    )


def _dead_openai(url: str) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(base_url=url, model="llama3.1", timeout_seconds=5)


def _breaker_events(telemetry: Telemetry) -> list[tuple[str, float | None]]:
    return [(e["state"], e.get("retry_in_s")) for e in telemetry.recent("breaker")]


async def test_a_refused_connection_is_tried_once_and_the_next_call_skips_the_model(
    dead_url: str, connections: ConnectionCount
) -> None:
    telemetry, clock = Telemetry(), FakeClock()
    chain = _chain(_dead_openai(dead_url), telemetry, clock)
    try:
        first = await chain.complete(_whois())
        assert first.provider == "offline" and first.parsed == Intent(kind="whois", target="alice")
        assert len(connections) == 1  # not retried three times
        assert _breaker_events(telemetry) == [("open", 5.0)]
        second = await chain.complete(_whois())
        assert second.provider == "offline"
        assert len(connections) == 1  # the dead endpoint is not tried again
    finally:
        await chain.aclose()
    calls = [(e["provider"], e["outcome"], e["retries"]) for e in telemetry.recent("llm_call")]
    assert calls == [
        ("openai", "fallback", 0),
        ("offline", "ok", 0),
        ("openai", "skipped", 0),
        ("offline", "ok", 0),
    ]


async def test_half_open_sends_one_probe_and_a_failed_probe_doubles_the_backoff(
    dead_url: str, connections: ConnectionCount
) -> None:
    telemetry, clock = Telemetry(), FakeClock()
    chain = _chain(_dead_openai(dead_url), telemetry, clock)
    try:
        await chain.complete(_whois())
        clock.now += 5.0
        # Three calls at once when it half-opens: one probes, two go straight to the fallback.
        answers = await asyncio.gather(*(chain.complete(_whois()) for _ in range(3)))
        assert {a.provider for a in answers} == {"offline"}
        assert len(connections) == 2
        assert _breaker_events(telemetry) == [("open", 5.0), ("half_open", None), ("open", 10.0)]
        clock.now += 9.0
        await chain.complete(_whois())
        assert len(connections) == 2  # still inside the 10 s
        for backoff in (20.0, 40.0, 80.0, 160.0, 300.0, 300.0):
            clock.now += 1000.0
            await chain.complete(_whois())
            assert _breaker_events(telemetry)[-1] == ("open", backoff)
    finally:
        await chain.aclose()


async def test_a_probe_that_answers_closes_the_breaker(
    dead_url: str, connections: ConnectionCount, fake_http: FakeHTTPServer
) -> None:
    telemetry, clock = Telemetry(), FakeClock()
    provider = _dead_openai(dead_url)
    chain = _chain(provider, telemetry, clock)
    try:
        await chain.complete(_whois())
        # The server comes back (at another address: a dead port cannot be revived here).
        await provider.aclose()
        provider._client = openai_client(fake_http.base_url + "/v1", None, 5)
        answer = '{"kind": "whois", "target": "alice"}'
        fake_http.queue(Reply(body=openai_text(answer)), Reply(body=openai_text(answer)))
        assert (await chain.complete(_whois())).provider == "offline"  # still open
        clock.now += 5.0
        assert (await chain.complete(_whois())).provider == "openai"  # the probe
        assert (await chain.complete(_whois())).provider == "openai"
    finally:
        await chain.aclose()
    assert [s for s, _ in _breaker_events(telemetry)] == ["open", "half_open", "closed"]


def test_timeouts_open_it_after_three_in_a_row_and_server_errors_do_not() -> None:
    clock = FakeClock()
    breakers = CircuitBreakers(BreakerPolicy(failures_to_open=3), clock=clock)
    for _ in range(10):  # retries within a call: the server has a bad time, it is not down
        breakers.failed("gemini", "flash", LLMUnavailable("gemini 503: overloaded"))
    assert breakers.allow("gemini", "flash")
    breakers.failed("gemini", "flash", LLMTimedOut("no answer within 30s"))
    breakers.failed("gemini", "flash", LLMTimedOut("no answer within 30s"))
    breakers.succeeded("gemini", "flash")  # an answer in between: the count starts over
    for _ in range(2):
        breakers.failed("gemini", "flash", LLMTimedOut("no answer within 30s"))
    assert breakers.allow("gemini", "flash")
    breakers.failed("gemini", "flash", LLMTimedOut("no answer within 30s"))
    assert not breakers.allow("gemini", "flash")
    assert breakers.allow("gemini", "pro")  # per model
    # Calls already out when it opened fail too: they do not stretch the backoff.
    for _ in range(5):
        breakers.failed("openai", "x", LLMUnreachable("refused"))
    assert not breakers.allow("openai", "x")
    assert [s.retry_in_seconds for s in breakers.states() if s.model == "x"] == [5.0]


async def test_health_reads_the_open_breaker_from_the_state_file(
    dead_url: str, connections: ConnectionCount, tmp_path: Path
) -> None:
    settings = load_settings(
        llm_provider="openai", openai_base_url=dead_url, log_dir=tmp_path, gemini_api_key=None
    )
    telemetry = Telemetry()
    chain = build_provider_chain(settings, telemetry)
    try:
        assert breaker_report(tmp_path) == ""
        assert (await chain.complete(_whois())).provider == "offline"
    finally:
        await chain.aclose()
    report = breaker_report(tmp_path)
    assert report.startswith("openai:llama3.1 open for ") and "LLMUnreachable" in report


def test_a_local_endpoint_has_no_rate_limit_by_default_and_gemini_keeps_its_own() -> None:
    for url in (
        "http://localhost:11434/v1",
        "http://127.0.0.1:8080/v1",
        "http://ollama:11434/v1",
        "http://192.168.1.20:11434/v1",
        "http://[::1]:11434/v1",
    ):
        assert is_local_endpoint(url), url
    for url in ("https://api.openai.com/v1", "https://openrouter.ai/api/v1", "http://8.8.8.8/v1"):
        assert not is_local_endpoint(url), url

    def rpm(**overrides: Any) -> float | None:
        settings = load_settings(llm_provider="openai", gemini_api_key=None, **overrides)
        provider = OpenAICompatibleProvider(base_url=settings.openai_base_url, model="m")
        return provider_limits(provider, settings).requests_per_minute

    assert rpm() is None  # Ollama at localhost: not paced at 15 a minute
    assert rpm(openai_requests_per_minute=30) == 30
    assert rpm(openai_base_url="https://openrouter.ai/api/v1") == 15


async def test_gemini_on_a_closed_port_is_unreachable_and_opens_the_breaker(dead_url: str) -> None:
    from memory.llm.providers.gemini import GeminiProvider

    telemetry, clock = Telemetry(), FakeClock()
    gemini = GeminiProvider(
        api_key="k", model="gemini-2.5-flash-lite", base_url=dead_url.removesuffix("/v1")
    )
    chain = ProviderChain(
        [gemini, OfflineProvider()],
        policy=RetryPolicy(max_retries=3, backoff_base=0.25, timeout=5),
        telemetry=telemetry,
        sleep=RecordingSleep(),
        breakers=CircuitBreakers(clock=clock, on_change=breaker_listener(telemetry)),
    )
    try:
        assert (await chain.complete(_whois())).provider == "offline"
        assert (await chain.complete(_whois())).provider == "offline"
    finally:
        await chain.aclose()
    [opened] = telemetry.recent("breaker")
    assert opened["state"] == "open" and opened["reason"].startswith("LLMUnreachable")
    outcomes = [(e["provider"], e["outcome"]) for e in telemetry.recent("llm_call")]
    assert outcomes[0] == ("gemini", "fallback") and outcomes[2] == ("gemini", "skipped")
    assert telemetry.recent("llm_call")[0]["retries"] == 0  # a refused connection: no retry


class FlakyOnce(OfflineProvider):
    """A model whose first answer is a 503, then answers (no network: the limiter is tested)."""

    name = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        if self.calls == 1:
            raise LLMUnavailable("gemini 503: overloaded")
        return await super().complete(request)


async def test_a_retry_reuses_its_calls_rate_limit_slot() -> None:
    telemetry = Telemetry()
    flaky = FlakyOnce()
    chain = ProviderChain(
        [flaky],
        # One request a minute: a retry that queued for a second slot would time out.
        limits={"gemini": ProviderLimits(requests_per_minute=1)},
        policy=RetryPolicy(max_retries=3, backoff_base=0.25, timeout=5, queue_timeout=0.5),
        telemetry=telemetry,
        sleep=RecordingSleep(),
    )
    answer = await chain.complete(_whois())
    assert (answer.retries, flaky.calls) == (1, 2)
    [call] = telemetry.recent("llm_call")
    assert (call["provider"], call["outcome"], call["retries"]) == ("gemini", "ok", 1)


def test_the_same_refusal_or_server_error_three_times_in_a_row_opens_it() -> None:
    """Every call would fail alike: after three identical failures the next provider answers
    at once instead of each call paying the refusal (issue 33)."""
    clock = FakeClock()
    breakers = CircuitBreakers(BreakerPolicy(failures_to_open=3), clock=clock)
    refused = LLMRequestRejected("openai 500 (a refusal): Input should be 'text'")
    for _ in range(2):
        breakers.failed("openai", "smol", refused)
        breakers.gave_up("openai", "smol", refused)
    assert breakers.allow("openai", "smol")
    breakers.gave_up("openai", "smol", refused)
    assert not breakers.allow("openai", "smol")
    for _ in range(3):
        breakers.gave_up("openai", "big", LLMUnavailable("openai 502: bad gateway"))
    assert not breakers.allow("openai", "big")
    breakers.gave_up("openai", "other", LLMUnavailable("openai 502: bad gateway"))
    breakers.gave_up("openai", "other", LLMUnavailable("openai 503: overloaded"))
    breakers.gave_up("openai", "other", LLMUnavailable("openai 502: bad gateway"))
    assert breakers.allow("openai", "other")  # not the same failure each time
