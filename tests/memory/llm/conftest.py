"""Fixtures for the LLM layer: a sleep that only records (the loopback HTTP server,
`fake_http`, is in tests/memory/conftest.py: the embedding tests use it too)."""

from __future__ import annotations

import pytest


class RecordingSleep:
    """Stands in for asyncio.sleep so backoff is asserted, not waited for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()
