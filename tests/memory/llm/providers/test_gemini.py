"""The real google-genai client against a loopback server speaking the Gemini REST API."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from pydantic import BaseModel

from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    LLMBadOutput,
    LLMBlocked,
    LLMRateLimited,
    LLMRequest,
    LLMRequestRejected,
    LLMUnavailable,
    ProviderChain,
    RetryPolicy,
)
from memory.llm.providers.gemini import GeminiProvider
from memory.llm.tasks import Intent, PromptMember, PromptMessage
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import (
    GEMINI_429,
    GEMINI_500,
    GEMINI_ANSWER_BLOCKED,
    GEMINI_PROMPT_BLOCKED,
    FakeHTTPServer,
    Reply,
    gemini_error,
    gemini_text,
)


@pytest.fixture
async def gemini(fake_http: FakeHTTPServer) -> AsyncIterator[GeminiProvider]:
    provider = GeminiProvider(
        api_key="test-key",
        model="gemini-cheap",
        model_daily="gemini-strong",
        base_url=fake_http.base_url,
        timeout_seconds=5,
    )
    try:
        yield provider
    finally:
        await provider.aclose()


def _chain(
    provider: GeminiProvider,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
    *,
    fallback: bool = False,
    max_retries: int = 3,
) -> ProviderChain:
    providers = [provider, OfflineProvider()] if fallback else [provider]
    return ProviderChain(
        providers,
        policy=RetryPolicy(max_retries=max_retries, backoff_base=0.5, timeout=5),
        telemetry=telemetry,
        sleep=sleeps,
        jitter=lambda: 0.5,
    )


ROUTE_INPUTS = {
    "text": "remember that alice is Sergey",
    "bot_name": "Bot",
    "author_name": "bob",
    "replied_to": None,
}


def _route_request() -> LLMRequest:
    return LLMRequest(purpose="route", prompt="classify", schema=Intent, inputs=ROUTE_INPUTS)


async def test_text_call_sends_prompt_settings_and_reads_usage(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=gemini_text("Hi bob! Alice is doing well.", prompt_tokens=321)))
    response = await gemini.complete(
        LLMRequest(purpose="reply", prompt="<message>hi</message>", temperature=0.7, system="sys")
    )
    assert response.text == "Hi bob! Alice is doing well."
    assert (response.input_tokens, response.output_tokens) == (321, 30)
    assert response.provider == "gemini"
    sent = fake_http.requests[0]
    assert sent.path.endswith("/models/gemini-cheap:generateContent")
    assert sent.headers["x-goog-api-key"] == "test-key"
    assert sent.body["contents"][0]["parts"][0]["text"] == "<message>hi</message>"
    assert sent.body["generationConfig"]["temperature"] == 0.7
    assert sent.body["systemInstruction"]["parts"][0]["text"] == "sys"
    assert "responseMimeType" not in sent.body["generationConfig"]


async def test_structured_call_sends_json_schema_and_validates(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    answer = {"kind": "remember", "target": "alice", "statement": "alice is Sergey"}
    fake_http.queue(Reply(body=gemini_text(json.dumps(answer))))
    response = await gemini.complete(_route_request())
    assert response.parsed == Intent(**answer)
    config = fake_http.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config["responseSchema"]
    assert schema["properties"]["kind"]["enum"] == [
        "remember",
        "remember_this",
        "forget",
        "whois",
        "none",
    ]
    assert schema["required"] == ["kind"]


async def test_daily_summary_uses_daily_model_and_answers_by_name(
    gemini: GeminiProvider, fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    answer = {"summaries": ["alice: Alice got a job at the bakery and was nervous.", "bob: "]}
    fake_http.queue(Reply(body=gemini_text(json.dumps(answer), output_tokens=40, thoughts=500)))
    llm = MemoryLLM(_chain(gemini, telemetry, sleeps))
    message = PromptMessage(
        message_id=10,
        timestamp=datetime(2024, 5, 1, 9, tzinfo=UTC),
        author_id=1,
        author_name="alice",
        content="I got the job at the bakery!",
    )
    result, _ = await llm.summaries.read_stretch(
        guild_id=7,
        day=date(2024, 5, 1),
        timezone="UTC",
        messages=[message],
        members=[PromptMember(user_id=1, name="alice"), PromptMember(user_id=2, name="bob")],
        max_chars=300,
    )
    assert result == {1: "Alice got a job at the bakery and was nervous.", 2: ""}
    sent = fake_http.requests[0]
    assert sent.path.endswith("/models/gemini-strong:generateContent")
    item = sent.body["generationConfig"]["responseSchema"]["properties"]["summaries"]["items"]
    assert item["type"] == "STRING"  # one "name: note" string per member, no object
    event = telemetry.recent("llm_call")[-1]
    assert event["purpose"] == "daily_summary" and event["guild_id"] == 7
    assert event["output_tokens"] == 540  # thinking tokens are billed as output


async def test_429_then_success_waits_the_servers_retry_delay(
    gemini: GeminiProvider, fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    fake_http.queue(
        Reply(status=429, body=GEMINI_429),
        Reply(body=gemini_text('{"kind": "none"}', prompt_tokens=77)),
    )
    response = await _chain(gemini, telemetry, sleeps).complete(_route_request())
    assert response.parsed == Intent(kind="none")
    assert response.retries == 1
    assert sleeps.delays == [2.0]  # RetryInfo.retryDelay, not our own guess
    assert len(fake_http.requests) == 2  # the SDK did not retry on its own
    [event] = telemetry.recent("llm_call")
    assert event["outcome"] == "ok" and event["retries"] == 1 and event["input_tokens"] == 77


async def test_500_until_retries_run_out_raises_unavailable(
    gemini: GeminiProvider, fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    fake_http.queue(*[Reply(status=500, body=GEMINI_500) for _ in range(3)])
    with pytest.raises(LLMUnavailable, match="500"):
        await _chain(gemini, telemetry, sleeps, max_retries=2).complete(_route_request())
    assert len(fake_http.requests) == 3
    assert sleeps.delays == [0.5, 1.0]  # exponential backoff (jitter pinned to x1)
    [event] = telemetry.recent("llm_call")
    assert event["outcome"] == "error" and event["retries"] == 2 and event["provider"] == "gemini"


async def test_rate_limit_surfaces_as_typed_error_without_chain(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(status=429, body=GEMINI_429))
    with pytest.raises(LLMRateLimited) as caught:
        await gemini.complete(_route_request())
    assert caught.value.retry_after == 2.0


async def test_malformed_json_is_bad_output_then_offline_answers(
    gemini: GeminiProvider, fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    broken = gemini_text('{"kind": "remember", "target": "ali')
    fake_http.queue(Reply(body=broken), Reply(body=broken), Reply(body=broken))
    with pytest.raises(LLMBadOutput):
        await gemini.complete(_route_request())
    chain = _chain(gemini, telemetry, sleeps, fallback=True)
    response = await chain.complete(_route_request())
    # One retry on bad output (justified in chain.py), then the offline rules answer.
    assert len(fake_http.requests) == 3
    assert response.provider == "offline"
    assert response.parsed == Intent(kind="remember", target=None, statement="alice is Sergey")
    outcomes = [(e["provider"], e["outcome"]) for e in telemetry.recent("llm_call")]
    assert outcomes == [("gemini", "fallback"), ("offline", "ok")]


@pytest.mark.parametrize("body", [GEMINI_PROMPT_BLOCKED, GEMINI_ANSWER_BLOCKED])
async def test_safety_block_is_typed_and_not_retried(
    gemini: GeminiProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
    body: dict[str, Any],
) -> None:
    fake_http.queue(Reply(body=body))
    with pytest.raises(LLMBlocked, match="SAFETY"):
        await _chain(gemini, telemetry, sleeps).complete(_route_request())
    assert len(fake_http.requests) == 1 and sleeps.delays == []


async def test_empty_candidates_are_blocked(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body={"candidates": [], "modelVersion": "gemini-cheap"}))
    with pytest.raises(LLMBlocked, match="no candidates"):
        await gemini.complete(_route_request())


async def test_bad_request_is_rejected_without_retry(
    gemini: GeminiProvider, fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> None:
    fake_http.queue(
        Reply(status=400, body=gemini_error(400, "INVALID_ARGUMENT", "Invalid JSON payload"))
    )
    with pytest.raises(LLMRequestRejected, match="INVALID_ARGUMENT"):
        await _chain(gemini, telemetry, sleeps).complete(_route_request())
    assert len(fake_http.requests) == 1


async def test_connection_refused_fails_fast_without_sdk_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay: float, *args: object, **kwargs: object) -> None:
        waits.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", recording_sleep)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = GeminiProvider(
        api_key="k", model="m", base_url=f"http://127.0.0.1:{port}", timeout_seconds=5
    )
    try:
        with pytest.raises(LLMUnavailable):
            await provider.complete(_route_request())
    finally:
        await provider.aclose()
    # The SDK's implicit retry would sleep 1-10 s first; ours is the only retry loop.
    assert [delay for delay in waits if delay >= 0.5] == []


class _Tally(BaseModel):
    counts: dict[str, int]


async def test_schema_the_sdk_cannot_express_goes_as_json_schema(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(
        Reply(body=gemini_text('{"counts": {"alice": 3}}')),
        Reply(body=gemini_text('{"counts": {}}')),
    )
    request = LLMRequest(purpose="merge", prompt="count", schema=_Tally)
    response = await gemini.complete(request)
    assert response.parsed == _Tally(counts={"alice": 3})
    config = fake_http.requests[0].body["generationConfig"]
    assert "responseSchema" not in config
    assert config["responseJsonSchema"]["properties"]["counts"]["type"] == "object"
    await gemini.complete(request)
    assert len(fake_http.requests) == 2  # no failed attempt the second time
