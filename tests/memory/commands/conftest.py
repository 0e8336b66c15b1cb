"""Fixtures of the MemoryCommands tests: the guild's members stored, and a bot on them."""

from __future__ import annotations

import asyncpg
import pytest

from db.members import upsert_members
from memory.commands import MemoryCommands
from memory.core.telemetry import Telemetry
from tests.memory.commands.commands_support import ADMIN, ALICE, BOB, SAM_A, SAM_B, build


@pytest.fixture
async def members(db_pool: asyncpg.Pool) -> None:
    await upsert_members(db_pool, [ALICE, BOB, SAM_A, SAM_B, ADMIN])


@pytest.fixture
async def bot(db_pool: asyncpg.Pool, telemetry: Telemetry, members: None) -> MemoryCommands:
    return build(db_pool, telemetry)
