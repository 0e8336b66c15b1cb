"""Fixtures for the LLM layer: a loopback HTTP server and a sleep that only records."""

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


class RecordingSleep:
    """Stands in for asyncio.sleep so backoff is asserted, not waited for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()
