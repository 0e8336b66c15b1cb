"""The reply model's tools: search what was said, read a member's memory, list learned facts.

Offered to tool-capable models (Gemini, OpenAI-compatible) with every reply; the first search
is already in the prompt, so these are for a second look ("and before that?", another member,
a date range). Every call answers to the asking member's `Viewer` (never a channel they cannot
read), stays within the reply's time budget, and is one `tool_call` telemetry line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from datetime import date
from typing import Any

from memory.core.telemetry import Telemetry
from memory.core.viewer import Viewer
from memory.llm import Tool, ToolCall, ToolUse

_log = logging.getLogger(__name__)

# (guild, query, viewer, member or None, after, before) -> hit lines, best first.
SearchLines = Callable[
    [int, str, Viewer, int | None, date | None, date | None], Awaitable[list[str]]
]
MemberText = Callable[[int, int], Awaitable[str | None]]
LearnedLines = Callable[[int, int], Awaitable[list[str]]]
FindMember = Callable[[int, str], Awaitable[int | None]]

_MEMBER = {"type": "string", "description": "a member's name or nickname as people use it"}
TOOLS: tuple[Tool, ...] = (
    Tool(
        "search_memory",
        "Search what was said in this server (messages and day summaries), best matches "
        "first, each with its date, author and channel. Use words likely to be in the answer.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "member": {**_MEMBER, "description": "only what this member said (optional)"},
                "after": {"type": "string", "description": "only after this day, YYYY-MM-DD"},
                "before": {"type": "string", "description": "only before this day, YYYY-MM-DD"},
            },
            "required": ["query"],
        },
    ),
    Tool(
        "member_memory",
        "What the bot remembers about a member: facts, recent days and history.",
        {"type": "object", "properties": {"member": _MEMBER}, "required": ["member"]},
    ),
    Tool(
        "learned_facts",
        "Facts the bot learned from what a member said, each with the day it was learned.",
        {"type": "object", "properties": {"member": _MEMBER}, "required": ["member"]},
    ),
)


@dataclass(frozen=True)
class ToolSources:
    """Where the tools read from (wired in the composition root)."""

    search: SearchLines
    member_memory: MemberText
    learned_facts: LearnedLines
    find_member: FindMember


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True, eq=False)
class ReplyToolbox:
    """Builds the `ToolUse` of one reply: the tools bound to its guild, viewer and budget."""

    sources: ToolSources
    telemetry: Telemetry
    _: KW_ONLY
    budget_seconds: float
    max_calls: int = 3
    result_chars: int = 2400

    def for_reply(self, guild_id: int, viewer: Viewer) -> ToolUse:
        deadline = time.monotonic() + self.budget_seconds

        async def run(call: ToolCall) -> str:
            return await self._run(guild_id, viewer, call, deadline)

        return ToolUse(TOOLS, run, self.max_calls)

    async def _run(self, guild_id: int, viewer: Viewer, call: ToolCall, deadline: float) -> str:
        started = time.perf_counter()
        left = deadline - time.monotonic()
        hits = 0
        outcome = "ok"
        try:
            if left <= 0:
                outcome = "no_time"
                return "No time left for searching: answer from what you have."
            async with asyncio.timeout(left):
                lines = await self._answer(guild_id, viewer, call.name, call.arguments)
            hits = len(lines)
            if not lines:
                return "Nothing found."
            return "\n".join(lines)[: self.result_chars]
        except TimeoutError:
            outcome = "timeout"
            return "The search ran out of time: answer from what you have."
        except Exception as exc:
            outcome = "error"
            _log.warning("tool %s failed: %s", call.name, type(exc).__name__)
            return "The search failed: answer from what you have."
        finally:
            self.telemetry.emit(
                "tool_call",
                outcome=outcome,
                guild_id=guild_id,
                name=call.name,
                hits=hits,
                latency_ms=round((time.perf_counter() - started) * 1000, 2),
            )

    async def _answer(
        self, guild_id: int, viewer: Viewer, name: str, arguments: Mapping[str, Any]
    ) -> Sequence[str]:
        member_name = str(arguments.get("member") or "").strip()
        member_id = await self.sources.find_member(guild_id, member_name) if member_name else None
        if name == "search_memory":
            query = str(arguments.get("query") or "").strip()[:500]
            if not query:
                return []
            after, before = _day(arguments.get("after")), _day(arguments.get("before"))
            return await self.sources.search(guild_id, query, viewer, member_id, after, before)
        if member_id is None:
            return [f"No member named {member_name!r}."] if member_name else []
        if name == "member_memory":
            text = await self.sources.member_memory(guild_id, member_id)
            return [text] if text else []
        if name == "learned_facts":
            return await self.sources.learned_facts(guild_id, member_id)
        return [f"There is no tool named {name!r}."]
