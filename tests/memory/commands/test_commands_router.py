"""MemoryCommands asks the model's router only when its rules cannot tell: a scripted router
finds a command the rules missed (and chat is left alone), a sentence the rules misread is
checked with it, and plain chat costs no model call."""

from __future__ import annotations

import asyncpg

from memory.core.telemetry import Telemetry
from memory.llm.providers import LLMRequest
from memory.llm.tasks import Intent
from tests.memory.commands.commands_support import ALICE, BOB, G, build, say
from tests.memory.facts_support import scripted_memory_model


async def test_llm_router_path_with_a_scripted_model(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    def route(request: LLMRequest) -> Intent:
        text = request.inputs["text"]
        if "drop" in text:
            return Intent(kind="forget", target="me", statement="Alice is vegan")
        if "vegan" in text:
            return Intent(kind="remember", target="alice", statement="Alice is vegan")
        return Intent(kind="none")

    provider = scripted_memory_model(route=route)
    bot = build(db_pool, telemetry, provider)
    result = await say(bot, BOB, "keep in mind that alice is vegan")
    assert result.outcome == "ok" and result.target_id == 1
    assert provider.calls["route"] == 1
    assert "Alice is vegan" in await bot.facts.blob(G, 1)
    route_request = provider.requests[0]
    assert route_request.purpose == "route" and route_request.inputs["author_name"] == "Bobby"

    forgot = await say(bot, ALICE, "please drop what you remember about me being vegan")
    assert forgot.kind == "forget" and forgot.outcome == "ok"
    assert "vegan" not in await bot.facts.blob(G, 1)

    # the router says it is chat: the command layer stays out of it
    assert await bot.handle(G, BOB, "do you remember the game yesterday?") is None
    provider.fail("route")
    assert await bot.handle(G, BOB, "do you remember the game yesterday?") is None


async def test_rules_misreading_a_sentence_ask_the_router(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    provider = scripted_memory_model()  # its router says "none"
    bot = build(db_pool, telemetry, provider)
    assert await bot.handle(G, BOB, "remember that the weather was nice") is None
    assert provider.calls["route"] == 1 and provider.calls["remember"] == 0


async def test_chat_costs_no_llm_call(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    provider = scripted_memory_model()
    bot = build(db_pool, telemetry, provider)
    assert await bot.handle(G, BOB, "how are you today?") is None
    assert sum(provider.calls.values()) == 0
