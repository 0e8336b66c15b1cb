"""What the MemoryCommands tests share: the members of one guild, a MemoryCommands on real
PostgreSQL (the offline provider unless given another), and saying a command as a member."""

from __future__ import annotations

from typing import Any

import asyncpg

from memory.commands import CommandOperations, CommandResult, CommandsConfig, MemoryCommands
from memory.commands._types import MemorySource
from memory.core.clock import Clock, SystemClock
from memory.core.models import Member
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.facts import FactsConfig, FactService
from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.providers import LLMProvider

G = 300
ALICE = Member(G, 1, username="alice", global_name="Alice")
BOB = Member(G, 2, username="bob", nickname="Bobby")
SAM_A = Member(G, 3, username="sam_a", nickname="Sam")
SAM_B = Member(G, 4, username="sam_b", global_name="Sam")
ADMIN = Member(G, 5, username="admin")


def build(
    db_pool: asyncpg.Pool,
    telemetry: Telemetry,
    provider: LLMProvider | None = None,
    clock: Clock | None = None,
    memories: MemorySource | None = None,
    **overrides: Any,
) -> MemoryCommands:
    settings = Settings(_env_file=None, **{"commands_per_minute": 100, **overrides})
    llm = MemoryLLM(provider or OfflineProvider())
    facts = FactService(db_pool, llm, FactsConfig.from_settings(settings), telemetry=telemetry)
    config = CommandsConfig.from_settings(settings)
    operations = CommandOperations(
        db_pool, facts, llm, config, telemetry=telemetry, memories=memories
    )
    return MemoryCommands(
        operations, llm, config, telemetry=telemetry, clock=clock or SystemClock()
    )


async def say(bot: MemoryCommands, author: Member, text: str, **kwargs: Any) -> CommandResult:
    result = await bot.handle(G, author, text, **kwargs)
    assert result is not None, f"{text!r} was not taken as a command"
    return result
