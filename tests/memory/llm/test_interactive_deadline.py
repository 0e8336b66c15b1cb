"""A hung model cannot hold a member's reply: interactive purposes get one deadline per
provider for all their attempts (the real openai SDK against a loopback server that never
answers), then the next provider answers; a day's summary keeps its long timeout."""

from __future__ import annotations

import asyncio
from typing import Any

from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm._factory import build_provider_chain, retry_policy
from memory.llm.providers import LLMRequest
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text
from tests.support import eventually


def _settings(fake_http: FakeHTTPServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "_env_file": None,
        "llm_provider": "openai",
        "openai_base_url": fake_http.base_url + "/v1",
        "llm_fallback": "offline",
        "llm_interactive_timeout_seconds": 0.3,
        "llm_local_interactive_timeout_seconds": 0.3,
        **overrides,
    }
    return Settings(**values)


async def test_a_hung_model_gives_way_to_the_fallback_within_the_deadline(
    fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    released = asyncio.Event()
    fake_http.queue(*[Reply(hold=released) for _ in range(10)])
    chain = build_provider_chain(_settings(fake_http), telemetry)
    try:
        request = LLMRequest(
            purpose="reply", prompt="hi", inputs={"message": "hi", "author": "bob"}
        )
        response = await chain.complete(request)
    finally:
        released.set()
        await chain.aclose()
    assert response.provider == "offline"
    [gave_up] = [e for e in telemetry.recent("llm_call") if e["provider"] == "openai"]
    assert gave_up["outcome"] == "fallback" and "0.3s an interactive reply" in gave_up["error"]


def test_interactive_purposes_wait_less_than_a_day_summary(fake_http: FakeHTTPServer) -> None:
    policy = retry_policy(_settings(fake_http, llm_interactive_timeout_seconds=8))
    assert policy.timeout_for("reply") == 8 and policy.timeout_for("whois") == 8
    assert policy.timeout_for("daily_summary") == 120  # a whole day is a long prompt


async def test_a_slow_local_model_gets_its_longer_deadline_and_the_member_its_answer(
    fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    """A CPU-only model on this machine needs longer than a cloud model: with the cloud limit
    at 0.3 s, the loopback server's answer after 0.6 s still reaches the member."""
    released = asyncio.Event()
    fake_http.queue(Reply(body=openai_text("Hello from the slow model."), hold=released))
    settings = _settings(fake_http, llm_local_interactive_timeout_seconds=30)
    chain = build_provider_chain(settings, telemetry)
    try:
        request = LLMRequest(purpose="reply", prompt="hi", inputs={"message": "hi"})
        asked = asyncio.ensure_future(chain.complete(request))
        await eventually(lambda: len(fake_http.requests) == 1)
        await asyncio.wait({asked}, timeout=0.6)  # twice the cloud limit, still waiting
        assert not asked.done()
        released.set()
        response = await asked
    finally:
        released.set()
        await chain.aclose()
    assert response.provider == "openai" and response.text == "Hello from the slow model."


async def test_in_a_burst_a_slow_local_model_is_skipped_at_once(
    fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    settings = _settings(fake_http, llm_local_interactive_timeout_seconds=30)
    chain = build_provider_chain(settings, telemetry)
    try:
        request = LLMRequest(
            purpose="reply", prompt="hi", inputs={"message": "hi", "author": "bob"}, urgent=True
        )
        response = await chain.complete(request)
    finally:
        await chain.aclose()
    assert response.provider == "offline" and not fake_http.requests
    [skipped] = [e for e in telemetry.recent("llm_call") if e["provider"] == "openai"]
    assert skipped["outcome"] == "skipped" and "burst" in skipped["error"]


def test_a_cloud_endpoint_keeps_the_short_limit(fake_http: FakeHTTPServer) -> None:
    cloud = _settings(fake_http, openai_base_url="https://api.example.com/v1")
    assert retry_policy(cloud).timeout_for("reply", "openai") == 0.3
    local = _settings(fake_http, llm_local_interactive_timeout_seconds=90)
    assert retry_policy(local).timeout_for("reply", "openai") == 90
    assert retry_policy(local).timeout_for("reply", "gemini") == 0.3
