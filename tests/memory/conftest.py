"""Fixtures for memory tests: a loopback HTTP server speaking for LLM and embedding providers
(the real SDKs talk to it; see tests/memory/llm/fake_http.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.memory.llm.fake_http import FakeHTTPServer


def pytest_configure(config: pytest.Config) -> None:
    # google-genai subclasses aiohttp.ClientSession, which aiohttp warns about on import.
    config.addinivalue_line(
        "filterwarnings", "ignore:Inheritance class AiohttpClientSession:DeprecationWarning"
    )


@pytest.fixture
async def fake_http() -> AsyncIterator[FakeHTTPServer]:
    server = FakeHTTPServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
