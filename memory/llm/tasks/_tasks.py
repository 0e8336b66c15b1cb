"""Memory operations as LLM tasks: render the prompt file, call the provider, validate output.

This is the only place memory code reaches an LLM. Each method builds an `LLMRequest` whose
`inputs` mirror the prompt's content, so the offline provider can answer deterministically
from the same request a real model gets.
"""

from __future__ import annotations

import logging
import re

from memory.core.telemetry import Telemetry
from memory.llm.providers import LLMBadOutput, LLMProvider, LLMRequest, ToolUse
from memory.llm.tasks._calls import (
    Answered,
    TaskCalls,
    echo_problem,
    grounded_problem,
    output_budget,
)
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
from memory.llm.tasks._vetting import carries, echoes, flat_sources, grounded, names_in
from prompts.loader import render

_log = logging.getLogger(__name__)

# The reply prompt's own sections: a reply that writes them repeats the prompt.
_PROMPT_MARKUP = re.compile(
    r"</?(task|memories|memory|conversation|recalled|message|persona|rules|summary)\b"
    # a tool call written out as text instead of made (chatml-function-calling servers)
    r"|^\s*functions\.\w+\s*:|&#34;|\{\s*\"(name|arguments|query|member)\"\s*:"
)

__all__ = [
    "MemoryLLM",
    "by_member",
    "forgotten_constraints",
    "history_elements",
    "member_elements",
    "message_elements",
    "reduce_elements",
]


class MemoryLLM:
    """Typed memory tasks over any `LLMProvider` (usually the fallback chain): the fact and
    conversation tasks here, the transient-memory ones in `summaries`, both over one
    `TaskCalls` (the provider, the validated call, the offline floor)."""

    def __init__(
        self,
        provider: LLMProvider,
        *,
        telemetry: Telemetry | None = None,
        offline: LLMProvider | None = None,
    ) -> None:
        """`offline`: the provider whose answer replaces each unusable item of a model's."""
        self.calls = TaskCalls(provider, telemetry, offline)
        self.summaries = SummaryTasks(self.calls)

    @property
    def provider(self) -> LLMProvider:
        return self.calls.provider

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
        problem = grounded_problem(
            f"{blob}\n{statement}", [member.name, *member.aliases], keeps=(statement, blob)
        )
        return await self.calls.text(
            "remember", prompt, inputs, problem, guild_id=guild_id, max_chars=max_chars
        )

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
        names = [member.name, *member.aliases]

        def problem(answer: ForgetOutput, examples: list[str]) -> str | None:
            if answer.blob.strip() and echoes(answer.blob, examples):
                return "echo"
            if answer.blob.strip() and not grounded(answer.blob, blob, names=names):
                return "ungrounded"
            if not answer.blob.strip() and not answer.found and blob.strip():
                return "emptied without a match"
            return None

        result = await self.calls.vetted(
            "forget",
            prompt,
            ForgetOutput,
            inputs,
            problem,
            guild_id=guild_id,
            max_output_tokens=output_budget("forget", len(blob)),
        )
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
        said = f"{text}\n{replied_to or ''}"

        def problem(answer: Intent, examples: list[str]) -> str | None:
            for value in (answer.target, answer.statement):
                if value and echoes(value, examples):
                    return "echo"
            target = (answer.target or "").strip()
            spoken = target.casefold() in ("me", "myself") or "<@" in target
            if target and not spoken and not names_in(said, [target]):
                return "unknown target"
            if answer.statement and not grounded(answer.statement, said, names=[target]):
                return "ungrounded"
            return None

        return await self.calls.vetted("route", prompt, Intent, inputs, problem, guild_id=guild_id)

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
        names = [member.name, *member.aliases, asker_name, bot_name]

        def problem(answer: TextOutput, examples: list[str]) -> str | None:
            text = answer.text
            if wrong := echo_problem(text, examples):
                return wrong
            if memory.strip() and not carries(text, memory, names=names):
                return "left out the stored facts"
            if memory.strip() and not grounded(text, f"{memory}\n{question}", names=names):
                return "ungrounded"
            return None

        return await self.calls.text("whois", prompt, inputs, problem, guild_id=guild_id)

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
        problem = grounded_problem(flat_sources(inputs), [turn.author_name for turn in turns])
        return await self.calls.text(
            "window_fold", prompt, inputs, problem, guild_id=guild_id, max_chars=max_chars
        )

    async def reply(
        self,
        *,
        prompt: str,
        inputs: dict[str, object],
        guild_id: int | None,
        temperature: float = 0.7,
        tools: ToolUse | None = None,
        urgent: bool = False,
    ) -> str:
        """Free-text reply; the reply composer renders `prompts/reply.xml` itself. With
        `tools`, a tool-capable model may search memory before it answers; `urgent` (a burst)
        skips a slow local model. An empty answer or one that repeats the prompt's markup is
        replaced by the offline reply."""
        request = LLMRequest(
            purpose="reply",
            prompt=prompt,
            temperature=temperature,
            inputs=inputs,
            guild_id=guild_id,
            tool_use=tools,
            max_output_tokens=output_budget("reply"),
            urgent=urgent,
        )
        calls = self.calls
        response = await calls.provider.complete(request)
        text = response.text.strip()
        wrong = "empty" if not text else ("echo" if _PROMPT_MARKUP.search(text) else None)
        answered = Answered(TextOutput(text=text), request, response)
        if wrong is not None and calls.checks(answered):
            calls.degraded(answered, items=1, detail=wrong)
            text = (await calls.offline.complete(request)).text.strip()
        if not text:
            raise LLMBadOutput("reply: empty answer")
        return text
