"""The real openai SDK against a loopback server speaking the chat completions API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime

import pytest

from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember, PromptMessage
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    LLMBadOutput,
    LLMBlocked,
    LLMRequest,
    LLMRequestRejected,
    LLMUnavailable,
    ProviderChain,
    RetryPolicy,
)
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from memory.llm.tasks import ForgetOutput, TextOutput
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_error, openai_text


@pytest.fixture
async def local_llm(fake_http: FakeHTTPServer) -> AsyncIterator[OpenAICompatibleProvider]:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1",
        model="llama3.1",
        model_daily="qwen2.5:14b",
        timeout_seconds=5,
    )
    try:
        yield provider
    finally:
        await provider.aclose()


def _chain(
    provider: OpenAICompatibleProvider,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
    *,
    fallback: bool = False,
    max_retries: int = 3,
) -> ProviderChain:
    return ProviderChain(
        [provider, OfflineProvider()] if fallback else [provider],
        policy=RetryPolicy(max_retries=max_retries, backoff_base=0.25, timeout=5),
        telemetry=telemetry,
        sleep=sleeps,
        jitter=lambda: 0.5,
    )


FORGET_INPUTS = {
    "member": {"user_id": 1, "name": "alice", "aliases": []},
    "blob": "alice lives in Berlin. alice likes pizza.",
    "statement": "alice likes pizza",
}


def _forget_request() -> LLMRequest:
    return LLMRequest(
        purpose="forget", prompt="forget it", schema=ForgetOutput, inputs=FORGET_INPUTS
    )


async def test_text_call_without_key_reads_usage(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=openai_text("Hey bob, alice moved to Berlin!", prompt_tokens=88)))
    response = await local_llm.complete(
        LLMRequest(purpose="reply", prompt="hi", temperature=0.7, system="be nice")
    )
    assert response.text == "Hey bob, alice moved to Berlin!"
    assert (response.input_tokens, response.output_tokens) == (88, 12)
    sent = fake_http.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer not-needed"
    assert sent.headers["x-memorybot-purpose"] == "reply"  # a proxy in front tells purposes apart
    assert sent.body["model"] == "llama3.1"
    assert sent.body["messages"] == [
        {"role": "system", "content": "be nice"},
        {"role": "user", "content": "hi"},
    ]
    assert "response_format" not in sent.body


async def test_structured_call_sends_strict_json_schema(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=openai_text('{"found": true, "blob": "alice lives in Berlin."}')))
    response = await local_llm.complete(_forget_request())
    assert response.parsed == ForgetOutput(found=True, blob="alice lives in Berlin.")
    response_format = fake_http.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    schema = response_format["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["found", "blob"]


async def test_daily_purpose_uses_daily_model(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=openai_text('{"text": "alice had a good day."}')))
    request = LLMRequest(purpose="daily_reduce", prompt="reduce", schema=TextOutput)
    await local_llm.complete(request)
    assert fake_http.requests[0].body["model"] == "qwen2.5:14b"


async def test_server_without_json_schema_support_falls_back_to_json_in_text(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fenced = 'Sure! Here you go:\n```json\n{"found": false, "blob": "alice lives in Berlin."}\n```'
    fake_http.queue(
        Reply(status=400, body=openai_error("response_format type json_schema is unsupported")),
        Reply(body=openai_text(fenced)),
        Reply(body=openai_text('{"found": false, "blob": "x"}')),
    )
    response = await local_llm.complete(_forget_request())
    assert response.parsed == ForgetOutput(found=False, blob="alice lives in Berlin.")
    first, second = fake_http.requests
    assert first.body["response_format"]["type"] == "json_schema"
    # The refusal named the format: the next mode, json_object with the schema, at once.
    assert second.body["response_format"]["type"] == "json_object"
    assert second.body["response_format"]["schema"]["required"] == ["found", "blob"]
    # Remembered: the next structured call goes straight to the mode that worked.
    await local_llm.complete(_forget_request())
    assert fake_http.requests[2].body["response_format"]["type"] == "json_object"


async def test_429_then_success_honours_retry_after(
    local_llm: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
) -> None:
    fake_http.queue(
        Reply(
            status=429, body=openai_error("slow down", "rate_limit"), headers={"Retry-After": "3"}
        ),
        Reply(body=openai_text('{"found": true, "blob": ""}')),
    )
    response = await _chain(local_llm, telemetry, sleeps).complete(_forget_request())
    assert response.parsed == ForgetOutput(found=True, blob="")
    assert sleeps.delays == [3.0]
    assert len(fake_http.requests) == 2  # max_retries=0 in the SDK: only our retry
    [event] = telemetry.recent("llm_call")
    assert event["retries"] == 1 and event["outcome"] == "ok" and event["model"] == "llama3.1"


async def test_500_exhausted_raises_unavailable(
    local_llm: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
) -> None:
    fake_http.queue(*[Reply(status=500, body=openai_error("boom", "server_error"))] * 4)
    with pytest.raises(LLMUnavailable, match="500"):
        await _chain(local_llm, telemetry, sleeps).complete(_forget_request())
    assert len(fake_http.requests) == 4
    assert sleeps.delays == [0.25, 0.5, 1.0]


async def test_malformed_json_is_bad_output(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=openai_text('{"found": tru')))
    with pytest.raises(LLMBadOutput):
        await local_llm.complete(_forget_request())


async def test_malformed_json_twice_falls_back_to_offline(
    local_llm: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
) -> None:
    fake_http.queue(*[Reply(body=openai_text("I cannot do that {not json}"))] * 2)
    response = await _chain(local_llm, telemetry, sleeps, fallback=True).complete(_forget_request())
    assert response.provider == "offline"
    assert response.parsed == ForgetOutput(found=True, blob="alice lives in Berlin.")
    assert len(fake_http.requests) == 2


async def test_content_filter_is_blocked(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    fake_http.queue(Reply(body=openai_text("", finish="content_filter")))
    with pytest.raises(LLMBlocked):
        await local_llm.complete(_forget_request())


async def test_unknown_model_is_rejected_without_retry(
    local_llm: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
) -> None:
    fake_http.queue(Reply(status=404, body=openai_error("model 'llama3.1' not found")))
    with pytest.raises(LLMRequestRejected, match="404"):
        await _chain(local_llm, telemetry, sleeps).complete(
            LLMRequest(purpose="reply", prompt="hi")
        )
    assert len(fake_http.requests) == 1 and sleeps.delays == []


async def test_prose_answer_to_text_schema_is_accepted(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    """Small local models often ignore the JSON instruction for a one-field text answer."""
    fake_http.queue(Reply(body=openai_text("alice moved to Berlin and likes the bakery job.")))
    response = await local_llm.complete(
        LLMRequest(purpose="merge", prompt="merge", schema=TextOutput)
    )
    assert response.parsed == TextOutput(text="alice moved to Berlin and likes the bakery job.")


async def test_a_notes_pass_through_a_local_model_maps_names_back_to_members(
    local_llm: OpenAICompatibleProvider,
    fake_http: FakeHTTPServer,
    telemetry: Telemetry,
    sleeps: RecordingSleep,
) -> None:
    answer = {
        "summaries": ["alice: Alice got the job at the bakery.", "Bob (2): Bob fixed his bike."],
        "facts": [{"user_id": "alice", "subject": "job", "statement": "Alice is a baker."}],
    }
    fake_http.queue(Reply(body=openai_text(json.dumps(answer))))
    members = [
        PromptMember(user_id=300000000001000047, name="alice"),
        PromptMember(user_id=300000000001000048, name="bob"),
        PromptMember(user_id=300000000001000049, name="Bob"),
    ]
    at = datetime(2024, 5, 1, 9, tzinfo=UTC)
    messages = [
        PromptMessage(
            message_id=1,
            timestamp=at,
            author_id=members[0].user_id,
            author_name="alice",
            content="I got the job at the bakery!",
        ),
        PromptMessage(
            message_id=2,
            timestamp=at,
            author_id=members[2].user_id,
            author_name="Bob",
            content="fixed my bike this morning",
        ),
    ]
    notes, learned = await MemoryLLM(_chain(local_llm, telemetry, sleeps)).summaries.read_stretch(
        guild_id=7,
        day=date(2024, 5, 1),
        timezone="UTC",
        messages=messages,
        members=members,
        max_chars=300,
    )
    assert notes == {
        members[0].user_id: "Alice got the job at the bakery.",
        members[1].user_id: "",
        members[2].user_id: "Bob fixed his bike.",
    }
    assert [(item.user_id, item.statement) for item in learned] == [
        (str(members[0].user_id), "Alice is a baker.")
    ]
    sent = fake_http.requests[0].body
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["summaries"]["items"] == {"type": "string"}
    assert "300000000001000047" not in sent["messages"][-1]["content"]
