"""Tools a reply model may call (seed 000's agent loop), in one provider-neutral shape.

A request that carries a `ToolUse` lets a tool-capable provider (Gemini function calling,
OpenAI-compatible `tools`) ask for at most `max_calls` calls before it answers; the runner
executes each call and returns text the model reads back. Providers without tools (the
offline one) ignore it and answer from the prompt, which already holds the first search, so
a model without tools loses nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

_log = logging.getLogger(__name__)

# What a tool answers when it failed: the model goes on with what it has.
TOOL_FAILED = "This search failed; answer from what you already have."


@dataclass(frozen=True, slots=True)
class Tool:
    """One function the model may call: a name, what it is for, its JSON-schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


ToolRunner = Callable[[ToolCall], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class ToolUse:
    """The tools offered to one request and how to run them."""

    tools: tuple[Tool, ...]
    run: ToolRunner
    max_calls: int = 3

    def names(self) -> frozenset[str]:
        return frozenset(tool.name for tool in self.tools)


async def run_call(use: ToolUse, call: ToolCall) -> str:
    """The text a call answers; an unknown tool or a failed one says so instead of failing the
    reply (the model asked for it, the member is still owed an answer)."""
    if call.name not in use.names():
        return f"There is no tool named {call.name!r}."
    try:
        return await use.run(call)
    except Exception as exc:  # a tool is a help, never a reason not to answer
        _log.warning("tool %s failed: %s", call.name, type(exc).__name__)
        return TOOL_FAILED


def parse_arguments(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Arguments as the model sent them: a mapping, or JSON text (OpenAI); junk becomes {}."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
