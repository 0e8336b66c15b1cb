"""Fake LLM providers for tests: the network edge, scripted per purpose and counted.

`ScriptedProvider` answers each purpose with a function of the request, so tests can write
the model's answers as plain Python. It can fail, hang or be slow on demand.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from memory.llm.offline import OfflineProvider
from memory.llm.providers import LLMProvider, LLMRequest, LLMResponse, LLMUnavailable

Answer = Callable[[LLMRequest], Any | Awaitable[Any]]


class ScriptedProvider(LLMProvider):
    """Answers with `script[purpose](request)`: a pydantic model, a dict (validated against the
    request's schema) or a string. Records every request."""

    name = "scripted"

    def __init__(self, script: dict[str, Answer] | None = None, *, latency: float = 0.0) -> None:
        self.script: dict[str, Answer] = dict(script or {})
        self.latency = latency
        self.requests: list[LLMRequest] = []
        self.calls: Counter[str] = Counter()
        self.failing: set[str] = set()
        self.fail_all = False

    def fail(self, *purposes: str) -> None:
        """Make these purposes (or every purpose, with none given) raise LLMUnavailable."""
        if purposes:
            self.failing.update(purposes)
        else:
            self.fail_all = True

    def heal(self) -> None:
        self.failing.clear()
        self.fail_all = False

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        self.calls[request.purpose] += 1
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.fail_all or request.purpose in self.failing:
            raise LLMUnavailable(f"scripted failure for {request.purpose}")
        answer = self.script.get(request.purpose)
        if answer is None:
            raise LLMUnavailable(f"no script for purpose {request.purpose}")
        value = answer(request)
        if asyncio.iscoroutine(value):
            value = await value
        return _response(request, value)


def _response(request: LLMRequest, value: Any) -> LLMResponse:
    if isinstance(value, BaseModel):
        return LLMResponse(
            text=value.model_dump_json(), parsed=value, provider="scripted", model="scripted"
        )
    if isinstance(value, dict):
        assert request.schema is not None, f"{request.purpose} has no schema for a dict answer"
        model = request.schema.model_validate(value)
        return LLMResponse(
            text=model.model_dump_json(), parsed=model, provider="scripted", model="scripted"
        )
    text = str(value)
    parsed = request.schema.model_validate({"text": text}) if request.schema else None
    return LLMResponse(text=text, parsed=parsed, provider="scripted", model="scripted")


class RecordingProvider(LLMProvider):
    """The offline provider for memory work; every reply prompt is kept as sent."""

    name = "recording"

    def __init__(self) -> None:
        self.offline = OfflineProvider()
        self.reply_prompts: list[str] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if request.purpose != "reply":
            return await self.offline.complete(request)
        self.reply_prompts.append(request.prompt)
        return LLMResponse(text="Noted.", provider="recording", model="recording")
