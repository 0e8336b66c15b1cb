"""A hung model cannot hold a member's reply: interactive purposes get one deadline per
provider for all their attempts (the real openai SDK against a loopback server that never
answers), then the next provider answers; a day's summary keeps its long timeout."""

from __future__ import annotations

import asyncio

from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm._factory import build_provider_chain, retry_policy
from memory.llm.providers._base import LLMRequest
from tests.memory.llm.fake_http import FakeHTTPServer, Reply


def _settings(fake_http: FakeHTTPServer, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "_env_file": None,
        "llm_provider": "openai",
        "openai_base_url": fake_http.base_url + "/v1",
        "llm_fallback": "offline",
        "llm_interactive_timeout_seconds": 0.3,
        **overrides,
    }
    return Settings(**values)  # type: ignore[arg-type]


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
