"""A real model server that refuses a format (issue 33): the real openai SDK against a loopback
server answering as llama-cpp-python's does. A refusal steps down at once, is never retried
with the same body, is kept in the database for the next start, and `memorybot health` says it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from memory.core.telemetry import Telemetry
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    DatabaseCapabilities,
    EndpointCapabilities,
    LLMRequest,
    LLMRequestRejected,
    ProviderChain,
    RetryPolicy,
    Tool,
    ToolCall,
    ToolUse,
)
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from memory.llm.tasks import ForgetOutput
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_error, openai_text
from tests.memory.llm.providers.test_reply_tools import openai_call

# What llama-cpp-python's server answers to `response_format: json_schema` (HTTP 500).
LLAMA_CPP_REFUSAL = openai_error(
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}",
    kind="internal_server_error",
)
FORGET_INPUTS = {
    "member": {"user_id": 1, "name": "alice", "aliases": []},
    "blob": "alice lives in Berlin. alice likes pizza.",
    "statement": "alice likes pizza",
}
ANSWER = '{"found": true, "blob": "alice lives in Berlin."}'


def _forget() -> LLMRequest:
    return LLMRequest(
        purpose="forget", prompt="forget it", schema=ForgetOutput, inputs=FORGET_INPUTS
    )


def _provider(fake_http: FakeHTTPServer, store: Any = None) -> OpenAICompatibleProvider:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="smollm2", timeout_seconds=5
    )
    provider.capabilities = EndpointCapabilities(provider.base_url, store)
    return provider


@pytest.fixture
async def chain_parts(
    fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> AsyncIterator[tuple[OpenAICompatibleProvider, ProviderChain]]:
    provider = _provider(fake_http)
    chain = ProviderChain(
        [provider, OfflineProvider()],
        policy=RetryPolicy(max_retries=3, backoff_base=0.25, timeout=5),
        telemetry=telemetry,
        sleep=sleeps,
        jitter=lambda: 0.5,
    )
    try:
        yield provider, chain
    finally:
        await chain.aclose()


async def test_a_500_validation_refusal_steps_down_at_once_and_is_never_retried(
    chain_parts: tuple[OpenAICompatibleProvider, ProviderChain],
    fake_http: FakeHTTPServer,
    sleeps: RecordingSleep,
    telemetry: Telemetry,
) -> None:
    provider, chain = chain_parts
    fake_http.queue(
        Reply(status=500, body=LLAMA_CPP_REFUSAL),
        Reply(body=openai_text(ANSWER)),
        Reply(body=openai_text(ANSWER)),
    )
    first = await chain.complete(_forget())
    second = await chain.complete(_forget())
    assert first.provider == second.provider == "openai"
    formats = [request.body["response_format"] for request in fake_http.requests]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert "schema" in formats[1] and "schema" in formats[2]  # llama-cpp makes it a grammar
    assert sleeps.delays == []  # no backoff: a refusal is not an outage
    assert (await provider.capabilities.of("smollm2")).structured == "json_object_schema"
    assert [e["outcome"] for e in telemetry.recent("llm_call")] == ["ok", "ok"]


async def test_a_refused_request_that_no_format_can_mend_is_sent_once(
    chain_parts: tuple[OpenAICompatibleProvider, ProviderChain],
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
) -> None:
    _, chain = chain_parts
    refusal = openai_error("1 validation error: messages: Input should be a valid list")
    fake_http.queue(*[Reply(status=500, body=refusal) for _ in range(5)])
    request = LLMRequest(purpose="reply", prompt="hi", inputs={"message": "hi", "author": "bo"})
    response = await chain.complete(request)
    assert response.provider == "offline"
    assert len(fake_http.requests) == 1
    [failed] = [e for e in telemetry.recent("llm_call") if e["provider"] == "openai"]
    assert failed["retries"] == 0 and failed["error"].startswith("LLMRequestRejected")


async def test_a_plain_500_outage_is_still_retried(fake_http: FakeHTTPServer) -> None:
    provider = _provider(fake_http)
    fake_http.queue(Reply(status=500, body=openai_error("CUDA out of memory", "server_error")))
    try:
        with pytest.raises(Exception) as caught:
            await provider.complete(_forget())
    finally:
        await provider.aclose()
    assert not isinstance(caught.value, LLMRequestRejected)
    assert getattr(caught.value, "retryable", False)


async def test_the_negotiated_format_outlives_a_restart(
    fake_http: FakeHTTPServer, db_pool: Any
) -> None:
    before = _provider(fake_http, DatabaseCapabilities(db_pool))
    fake_http.queue(Reply(status=500, body=LLAMA_CPP_REFUSAL), Reply(body=openai_text(ANSWER)))
    await before.complete(_forget())
    await before.aclose()
    after = _provider(fake_http, DatabaseCapabilities(db_pool))  # a new process
    fake_http.queue(Reply(body=openai_text(ANSWER)))
    try:
        await after.complete(_forget())
    finally:
        await after.aclose()
    assert len(fake_http.requests) == 3
    assert fake_http.requests[2].body["response_format"]["type"] == "json_object"


async def test_a_server_refusing_every_json_mode_gets_plain_instructions(
    fake_http: FakeHTTPServer,
) -> None:
    provider = _provider(fake_http)
    no_format = openai_error("response_format is not supported by this server")
    fake_http.queue(
        *[Reply(status=400, body=no_format) for _ in range(3)], Reply(body=openai_text(ANSWER))
    )
    try:
        response = await provider.complete(_forget())
    finally:
        await provider.aclose()
    assert response.parsed == ForgetOutput(found=True, blob="alice lives in Berlin.")
    last = fake_http.requests[-1].body
    assert "response_format" not in last and "JSON schema" in last["messages"][-1]["content"]
    assert (await provider.capabilities.of("smollm2")).structured == "plain"


class _Runner:
    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def __call__(self, call: ToolCall) -> str:
        self.calls.append(call)
        return "nothing found"


async def test_a_model_that_only_calls_tools_degrades_once_instead_of_twice_over(
    chain_parts: tuple[OpenAICompatibleProvider, ProviderChain],
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
) -> None:
    """It asks for a tool even when told to answer: the reply is the fallback after one
    exchange (max_calls + 1 requests), not the whole exchange twice (8 requests)."""
    _, chain = chain_parts
    fake_http.queue(*[Reply(body=openai_call("search", {"query": "x"})) for _ in range(10)])
    tool = Tool("search", "Search.", {"type": "object", "properties": {}})
    use = ToolUse((tool,), _Runner(), max_calls=3)
    request = LLMRequest(
        purpose="reply", prompt="hi", inputs={"message": "hi", "author": "bo"}, tool_use=use
    )
    response = await chain.complete(request)
    assert response.provider == "offline"
    assert len(fake_http.requests) == 4
    assert fake_http.requests[-1].body["tool_choice"] == "none"
    [failed] = [e for e in telemetry.recent("llm_call") if e["provider"] == "openai"]
    assert "LLMUnusableOutput" in failed["error"] and failed["retries"] == 0


async def test_a_server_refusing_tools_is_asked_without_them_from_then_on(
    fake_http: FakeHTTPServer, db_pool: Any
) -> None:
    provider = _provider(fake_http, DatabaseCapabilities(db_pool))
    refusal = openai_error("1 validation error: tools: Extra inputs are not permitted")
    fake_http.queue(
        Reply(status=500, body=refusal),
        Reply(body=openai_text("A plain answer.")),
        Reply(body=openai_text("Another plain answer.")),
    )
    tool = Tool("search", "Search.", {"type": "object", "properties": {}})
    request = LLMRequest(
        purpose="reply",
        prompt="hi",
        inputs={},
        tool_use=ToolUse((tool,), _Runner(), max_calls=3),
    )
    try:
        assert (await provider.complete(request)).text == "A plain answer."
        assert (await provider.complete(request)).text == "Another plain answer."
    finally:
        await provider.aclose()
    assert ["tools" in r.body for r in fake_http.requests] == [True, False, False]
    stored = await DatabaseCapabilities(db_pool).load(provider.base_url)
    assert stored["smollm2"].tools is False
