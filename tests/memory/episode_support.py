"""Shared pieces of the episode tests: chat lines of two alternating members, a memory opened
at a fixed time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path

import asyncpg

from memory.core.clock import FixedClock
from memory.core.models import ChatMessage
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.wiring import Memory, open_memory
from tests.support import chat_message


def episode_lines(
    texts: list[str], *, guild: int, channel: int, at: datetime, first_id: int, id_step: int = 1
) -> list[ChatMessage]:
    """`texts` said a minute apart in `channel`, by members 1 and 2 in turn; their ids grow
    by `id_step` (ids grow with time, as Discord's snowflakes do)."""
    return [
        chat_message(
            first_id + index * id_step,
            text,
            guild_id=guild,
            channel_id=channel,
            author_id=1 + index % 2,
            created_at=at + timedelta(minutes=index),
        )
        for index, text in enumerate(texts)
    ]


@asynccontextmanager
async def memory_at(pool: asyncpg.Pool, tmp_path: Path, now: datetime) -> AsyncIterator[Memory]:
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    async with open_memory(settings, clock=FixedClock(now), pool=pool, telemetry=Telemetry()) as m:
        yield m
