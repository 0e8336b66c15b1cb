"""Memory operations as LLM tasks: render the prompt file, call the provider, validate output.

This is the only place memory code reaches an LLM. Each method builds an `LLMRequest` whose
`inputs` mirror the prompt's content, so the offline provider can answer deterministically
from the same request a real model gets.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from pydantic import BaseModel

from memory.llm.providers import LLMBadOutput, LLMRequest, ToolUse
from memory.llm.tasks._elements import (
    by_member,
    forgotten_constraints,
    history_elements,
    member_elements,
    message_elements,
    reduce_elements,
)
from memory.llm.tasks._schemas import (
    ForgetOutput,
    Intent,
    PromptMember,
    PromptMessage,
    TextOutput,
)
from memory.llm.tasks._summary_tasks import SummaryTasks
from memory.llm.tasks._transcript import compact_transcript
from prompts.loader import render

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

__all__ = [
    "MemoryLLM",
    "by_member",
    "forgotten_constraints",
    "history_elements",
    "member_elements",
    "message_elements",
    "reduce_elements",
]


class MemoryLLM(SummaryTasks):
    """Typed memory tasks over any `LLMProvider` (usually the fallback chain)."""

    async def remember(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        blob: str,
        statement: str,
        max_chars: int,
        forgotten: list[str] | None = None,
    ) -> str:
        """Merge a new fact into the member's blob (newer wins)."""
        prompt = render(
            "remember",
            member_name=member.name,
            member_id=member.user_id,
            max_chars=max_chars,
            constraints=forgotten_constraints(forgotten or []),
            blob=blob,
            statement=statement,
        )
        inputs = {
            "member": member.model_dump(),
            "blob": blob,
            "statement": statement,
            "max_chars": max_chars,
            "forgotten": forgotten or [],
        }
        result = await self._structured("remember", prompt, TextOutput, inputs, guild_id=guild_id)
        return result.text.strip()

    async def forget(
        self, *, guild_id: int, member: PromptMember, blob: str, statement: str
    ) -> ForgetOutput:
        """Remove claims matching `statement`; report whether anything matched."""
        prompt = render(
            "forget",
            member_name=member.name,
            member_id=member.user_id,
            blob=blob,
            statement=statement,
        )
        inputs = {"member": member.model_dump(), "blob": blob, "statement": statement}
        result = await self._structured("forget", prompt, ForgetOutput, inputs, guild_id=guild_id)
        return ForgetOutput(found=result.found, blob=result.blob.strip())

    async def route(
        self,
        *,
        text: str,
        bot_name: str,
        author_name: str,
        replied_to: str | None = None,
        guild_id: int | None = None,
    ) -> Intent:
        """Classify a message addressed to the bot into a memory command (or none)."""
        prompt = render(
            "route",
            bot_name=bot_name,
            author_name=author_name,
            text=text,
            replied_to=replied_to or "",
        )
        inputs = {
            "text": text,
            "bot_name": bot_name,
            "author_name": author_name,
            "replied_to": replied_to,
        }
        return await self._structured("route", prompt, Intent, inputs, guild_id=guild_id)

    async def whois(
        self,
        *,
        guild_id: int,
        member: PromptMember,
        memory: str,
        question: str,
        asker_name: str,
        bot_name: str,
    ) -> str:
        """Phrase an answer to "what do you know about X" from X's memory context."""
        prompt = render(
            "whois",
            asker_name=asker_name,
            bot_name=bot_name,
            member_name=member.name,
            member_id=member.user_id,
            memory=memory,
            question=question,
        )
        inputs = {"member": member.model_dump(), "memory": memory, "question": question}
        result = await self._structured("whois", prompt, TextOutput, inputs, guild_id=guild_id)
        return result.text.strip()

    async def fold_window(
        self, *, summary: str, turns: list[PromptMessage], max_chars: int, guild_id: int | None
    ) -> str:
        """Fold older conversation turns into the channel's running summary."""
        prompt = render(
            "window_fold",
            max_chars=max_chars,
            summary=summary,
            turns=compact_transcript(turns),
        )
        inputs = {
            "summary": summary,
            "turns": [turn.model_dump(mode="json") for turn in turns],
            "max_chars": max_chars,
        }
        result = await self._structured(
            "window_fold", prompt, TextOutput, inputs, guild_id=guild_id
        )
        return result.text.strip()

    async def reply(
        self,
        *,
        prompt: str,
        inputs: dict[str, object],
        guild_id: int | None,
        temperature: float = 0.7,
        tools: ToolUse | None = None,
    ) -> str:
        """Free-text reply; the reply composer renders `prompts/reply.xml` itself. With
        `tools`, a tool-capable model may search memory before it answers."""
        request = LLMRequest(
            purpose="reply",
            prompt=prompt,
            temperature=temperature,
            inputs=inputs,
            guild_id=guild_id,
            tool_use=tools,
        )
        response = await self.provider.complete(request)
        text = response.text.strip()
        if not text:
            raise LLMBadOutput("reply: empty answer")
        return text
