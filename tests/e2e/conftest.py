"""Fixtures for end-to-end tests against the fake Discord in tests/e2e/fake_discord.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.e2e.fake_discord import FakeDiscord


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord with discord.py pointed at it (undone after the test)."""
    async with FakeDiscord() as fake:
        yield fake
