"""Tool-calling replies through the real SDK clients against a loopback server: the model asks
for a memory search, the runner answers, the result goes back, the model answers; never more
than `max_calls` calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from memory.llm.providers import LLMRequest, Tool, ToolCall, ToolUse
from memory.llm.providers.gemini import GeminiProvider
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, gemini_text, openai_error, openai_text

SEARCH = Tool(
    "search_memory",
    "Search what was said.",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)


class Runner:
    """Answers every call with a line naming what it was asked, and keeps the calls."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def __call__(self, call: ToolCall) -> str:
        self.calls.append(call)
        return f"Thu 6 July 2023 Melanie: we went to the museum ({call.arguments.get('query')})"


def gemini_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": name, "args": args}}],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 5,
            "totalTokenCount": 105,
        },
        "modelVersion": "gemini-2.5-flash-lite",
    }


def openai_call(name: str, args: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1714550400,
        "model": "llama3.1",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 80, "completion_tokens": 7, "total_tokens": 87},
    }


@pytest.fixture
async def gemini(fake_http: FakeHTTPServer) -> AsyncIterator[GeminiProvider]:
    provider = GeminiProvider(
        api_key="k", model="gemini-cheap", base_url=fake_http.base_url, timeout_seconds=5
    )
    try:
        yield provider
    finally:
        await provider.aclose()


@pytest.fixture
async def local_llm(fake_http: FakeHTTPServer) -> AsyncIterator[OpenAICompatibleProvider]:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )
    try:
        yield provider
    finally:
        await provider.aclose()


def _request(runner: Runner, max_calls: int = 3) -> LLMRequest:
    return LLMRequest(
        purpose="reply",
        prompt="<message>When did Melanie go to the museum?</message>",
        temperature=0.7,
        tool_use=ToolUse((SEARCH,), runner, max_calls),
    )


async def test_gemini_runs_the_search_it_asks_for_and_answers_from_it(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    runner = Runner()
    fake_http.queue(
        Reply(body=gemini_call("search_memory", {"query": "museum"})),
        Reply(body=gemini_text("On Thu 6 July 2023.", prompt_tokens=150)),
    )
    response = await gemini.complete(_request(runner))

    assert response.text == "On Thu 6 July 2023."
    assert runner.calls == [ToolCall("search_memory", {"query": "museum"})]
    first, second = (r.body for r in fake_http.requests)
    declared = first["tools"][0]["functionDeclarations"][0]
    assert declared["name"] == "search_memory"
    assert first["toolConfig"]["functionCallingConfig"]["mode"] == "AUTO"
    answer = second["contents"][-1]["parts"][0]["functionResponse"]
    assert answer["name"] == "search_memory"
    assert "went to the museum" in answer["response"]["result"]
    # Both rounds are billed: the answer's tokens are the sum.
    assert response.input_tokens == 250


async def test_gemini_gets_no_more_tools_after_max_calls(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    runner = Runner()
    fake_http.queue(
        *(Reply(body=gemini_call("search_memory", {"query": f"q{i}"})) for i in range(2)),
        Reply(body=gemini_text("Done.")),
    )
    response = await gemini.complete(_request(runner, max_calls=2))

    assert response.text == "Done."
    assert [call.arguments["query"] for call in runner.calls] == ["q0", "q1"]
    modes = [r.body["toolConfig"]["functionCallingConfig"]["mode"] for r in fake_http.requests]
    assert modes == ["AUTO", "AUTO", "NONE"]


async def test_openai_compatible_runs_tool_calls_and_sends_results_back(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    runner = Runner()
    fake_http.queue(
        Reply(body=openai_call("search_memory", {"query": "museum"})),
        Reply(body=openai_text("She went on Thu 6 July 2023.")),
    )
    response = await local_llm.complete(_request(runner))

    assert response.text == "She went on Thu 6 July 2023."
    assert runner.calls == [ToolCall("search_memory", {"query": "museum"})]
    first, second = (r.body for r in fake_http.requests)
    assert first["tools"][0]["function"]["name"] == "search_memory"
    assert first["tool_choice"] == "auto"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    assert "went to the museum" in tool_message["content"]
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "search_memory"


async def test_openai_server_without_tools_is_asked_again_without_them(
    local_llm: OpenAICompatibleProvider, fake_http: FakeHTTPServer
) -> None:
    runner = Runner()
    fake_http.queue(
        Reply(status=400, body=openai_error("tools are not supported")),
        Reply(body=openai_text("Plain answer.")),
        Reply(body=openai_text("Second plain answer.")),
    )
    assert (await local_llm.complete(_request(runner))).text == "Plain answer."
    assert (await local_llm.complete(_request(runner))).text == "Second plain answer."

    assert runner.calls == []
    assert "tools" in fake_http.requests[0].body
    assert all("tools" not in r.body for r in fake_http.requests[1:])


async def test_unknown_tool_and_failing_tool_still_get_an_answer(
    gemini: GeminiProvider, fake_http: FakeHTTPServer
) -> None:
    async def broken(call: ToolCall) -> str:
        raise RuntimeError("database went away")

    fake_http.queue(
        Reply(body=gemini_call("drop_tables", {})),
        Reply(body=gemini_call("search_memory", {"query": "x"})),
        Reply(body=gemini_text("Sorry, I could not look that up.")),
    )
    request = LLMRequest(purpose="reply", prompt="hi", tool_use=ToolUse((SEARCH,), broken, 3))
    response = await gemini.complete(request)

    assert response.text == "Sorry, I could not look that up."
    results = [
        r.body["contents"][-1]["parts"][0]["functionResponse"]["response"]["result"]
        for r in fake_http.requests[1:]
    ]
    assert "no tool named 'drop_tables'" in results[0]
    assert "failed" in results[1]
