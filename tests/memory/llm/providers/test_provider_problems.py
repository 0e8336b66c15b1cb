"""A misconfigured provider is visible: the server's own message and the fix, at WARNING,
once per distinct problem (the real SDKs against the scripted HTTP server)."""

from __future__ import annotations

import logging

import pytest

from memory.llm.providers import LLMRequest, LLMRequestRejected, LLMUnavailable
from memory.llm.providers.gemini import GeminiProvider
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from tests.memory.llm.fake_http import (
    FakeHTTPServer,
    Reply,
    gemini_error,
    openai_error,
    openai_text,
)

OLLAMA_404 = 'model "llama3.1" not found, try pulling it first'


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


async def test_ollama_missing_model_is_shown_once_with_the_fix(
    fake_http: FakeHTTPServer, caplog: pytest.LogCaptureFixture
) -> None:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )
    fake_http.queue(
        Reply(status=404, body=openai_error(OLLAMA_404, "api_error")),
        Reply(status=404, body=openai_error(OLLAMA_404, "api_error")),
        Reply(status=401, body=openai_error("invalid api key")),
        Reply(body=openai_text("hello")),
    )
    request = LLMRequest(purpose="reply", prompt="hi")
    try:
        with caplog.at_level(logging.INFO):
            for _ in range(2):
                with pytest.raises(LLMRequestRejected):
                    await provider.complete(request)
            with pytest.raises(LLMRequestRejected):
                await provider.complete(request)
            assert (await provider.complete(request)).text == "hello"
    finally:
        await provider.aclose()
    warnings = _warnings(caplog)
    assert len(warnings) == 2, warnings  # the 404 once, the 401 once
    assert OLLAMA_404 in warnings[0]
    assert "run `ollama pull llama3.1`" in warnings[0] and "OPENAI_MODEL" in warnings[0]
    assert "invalid api key" in warnings[1] and "check OPENAI_API_KEY" in warnings[1]


async def test_unreachable_openai_server_says_where_it_looked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider = OpenAICompatibleProvider(
        base_url="http://127.0.0.1:9/v1", model="llama3.1", timeout_seconds=5
    )
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(2):
                with pytest.raises(LLMUnavailable):
                    await provider.complete(LLMRequest(purpose="reply", prompt="hi"))
    finally:
        await provider.aclose()
    warnings = _warnings(caplog)
    assert len(warnings) == 1
    assert "cannot connect to http://127.0.0.1:9/v1" in warnings[0]
    assert "OPENAI_BASE_URL" in warnings[0]


async def test_transient_errors_stay_quiet(
    fake_http: FakeHTTPServer, caplog: pytest.LogCaptureFixture
) -> None:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="llama3.1", timeout_seconds=5
    )
    fake_http.queue(Reply(status=503, body=openai_error("busy")))
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(LLMUnavailable):
            await provider.complete(LLMRequest(purpose="reply", prompt="hi"))
    finally:
        await provider.aclose()
    assert _warnings(caplog) == []


async def test_gemini_bad_key_is_shown_with_the_fix(
    fake_http: FakeHTTPServer, caplog: pytest.LogCaptureFixture
) -> None:
    provider = GeminiProvider(
        api_key="wrong", model="gemini-x", base_url=fake_http.base_url, timeout_seconds=5
    )
    bad_key = gemini_error(
        400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
    )
    fake_http.queue(Reply(status=400, body=bad_key), Reply(status=400, body=bad_key))
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(2):
                with pytest.raises(LLMRequestRejected):
                    await provider.complete(LLMRequest(purpose="reply", prompt="hi"))
    finally:
        await provider.aclose()
    warnings = _warnings(caplog)
    assert len(warnings) == 1
    assert "API key not valid" in warnings[0] and "check GEMINI_API_KEY" in warnings[0]
    assert "wrong" not in warnings[0]
