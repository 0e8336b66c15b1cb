"""What every memory task shares, held once by `MemoryLLM` and handed to each family of tasks:
the provider, its prompt limits, one validated call, and the offline provider's answer for
whatever part of a model's answer says nothing.

"Never worse than offline": a task checks a model's answer item by item (`_vetting.py`) and
replaces each item that fails with the offline provider's item for the same request, so no
day, context or answer is stored or sent emptier than the offline provider would make it.
Each replacement leaves an `llm_call` event with `outcome: degraded, reason: unusable_output`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from memory.core.telemetry import Telemetry
from memory.core.tokens import tokens_to_write
from memory.llm.providers import LLMBadOutput, LLMProvider, LLMRequest, LLMResponse, Purpose
from memory.llm.tasks._schemas import DailySummaries, PromptMember, TextOutput
from memory.llm.tasks._vetting import carries, echoes, example_texts, grounded

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# Output tokens per purpose beyond what the asked length needs (JSON keys, quotes, a name):
# a model that rambles stops there instead of at the context size. Documented in docs/llm.md.
OUTPUT_TOKENS_FIXED: dict[str, int] = {
    "route": 160,
    "whois": 400,
    "forget": 64,
    "remember": 64,
    "merge": 64,
    "window_fold": 64,
    "historical_summary": 64,
    "daily_summary": 400,  # room for learned facts
    "daily_reduce": 64,
    "episode": 64,
    "reply": 700,  # Discord's 2,000 characters and a little more
}


def output_budget(purpose: str, max_chars: int = 0, items: int = 1) -> int:
    """max_tokens for one call: the asked length of each item, plus the fixed part."""
    per_item = tokens_to_write(max_chars) + 16 if max_chars else 0
    return OUTPUT_TOKENS_FIXED.get(purpose, 256) + per_item * max(1, items)


@dataclass(frozen=True)
class Answered(Generic[T]):
    """A validated answer with the request that asked it and who answered."""

    parsed: T
    request: LLMRequest
    response: LLMResponse

    @property
    def by_model(self) -> bool:
        """A real model answered (not the offline provider, whose answers need no check)."""
        return self.response.provider != "offline"

    def examples(self) -> list[str]:
        return example_texts(self.request.prompt, self.request.schema)


@dataclass(frozen=True, slots=True)
class TaskCalls:
    """The provider (usually the fallback chain) and the structured call every task makes."""

    provider: LLMProvider
    telemetry: Telemetry | None = None
    # The provider whose answer replaces each unusable item of a model's (the offline one).
    floor: LLMProvider | None = None

    @property
    def offline(self) -> LLMProvider:
        """The deterministic provider whose answers are the floor."""
        if self.floor is None:
            raise LLMBadOutput("no offline provider to stand in for an unusable answer")
        return self.floor

    def checks(self, answered: Answered[T]) -> bool:
        """Check this answer item by item? A real model's, when an offline floor is set (the
        factory sets one; a task built over a scripted model in a test may go without)."""
        return answered.by_model and self.floor is not None

    def prompt_token_limit(self, purpose: Purpose) -> int | None:
        """Input tokens a prompt for `purpose` may hold (None: no known limit)."""
        per_purpose = getattr(self.provider, "token_limit_for", None)
        if per_purpose is not None:
            limit: int | None = per_purpose(purpose)
            return limit
        return self.provider.prompt_token_limit

    async def ask(
        self,
        purpose: Purpose,
        prompt: str,
        schema: type[T],
        inputs: Mapping[str, object],
        *,
        guild_id: int | None = None,
        temperature: float = 0.0,
        max_output_tokens: int | None = None,
    ) -> Answered[T]:
        request = LLMRequest(
            purpose=purpose,
            prompt=prompt,
            schema=schema,
            temperature=temperature,
            inputs=dict(inputs),
            guild_id=guild_id,
            max_output_tokens=max_output_tokens or output_budget(purpose),
        )
        response = await self.provider.complete(request)
        parsed = response.parsed
        if not isinstance(parsed, schema):
            raise LLMBadOutput(f"{purpose}: provider returned no {schema.__name__}")
        return Answered(parsed, request, response)

    async def vetted(
        self,
        purpose: Purpose,
        prompt: str,
        schema: type[T],
        inputs: Mapping[str, object],
        problem: Callable[[T, list[str]], str | None],
        *,
        guild_id: int | None = None,
        max_output_tokens: int | None = None,
    ) -> T:
        """One call whose whole answer is one item: the model's when `problem` finds none
        (given the answer and the prompt's example texts), else the offline provider's."""
        answered = await self.ask(
            purpose,
            prompt,
            schema,
            inputs,
            guild_id=guild_id,
            max_output_tokens=max_output_tokens,
        )
        if not self.checks(answered):
            return answered.parsed
        wrong = problem(answered.parsed, answered.examples())
        if wrong is None:
            return answered.parsed
        self.degraded(answered, items=1, detail=wrong)
        return await self.offline_answer(answered)

    async def text(
        self,
        purpose: Purpose,
        prompt: str,
        inputs: Mapping[str, object],
        problem: Callable[[TextOutput, list[str]], str | None],
        *,
        guild_id: int | None,
        max_chars: int = 0,
    ) -> str:
        """A free text checked by `problem` (`vetted`), stripped; `max_chars`, the length the
        prompt asks for, sizes the output budget."""
        result = await self.vetted(
            purpose,
            prompt,
            TextOutput,
            inputs,
            problem,
            guild_id=guild_id,
            max_output_tokens=output_budget(purpose, max_chars),
        )
        return result.text.strip()

    async def per_member(
        self,
        purpose: Purpose,
        prompt: str,
        inputs: Mapping[str, object],
        *,
        guild_id: int,
        members: list[PromptMember],
        max_chars: int,
    ) -> Answered[DailySummaries]:
        """One call answering a text of `max_chars` for each of `members` (checked item by
        item by the caller, with `_floor`)."""
        return await self.ask(
            purpose,
            prompt,
            DailySummaries,
            inputs,
            guild_id=guild_id,
            max_output_tokens=output_budget(purpose, max_chars, len(members)),
        )

    async def offline_answer(self, answered: Answered[T]) -> T:
        """The offline provider's answer to the same request."""
        response = await self.offline.complete(answered.request)
        parsed = response.parsed
        if not isinstance(parsed, type(answered.parsed)):
            raise LLMBadOutput(f"{answered.request.purpose}: offline gave no answer")
        return parsed

    def degraded(
        self, answered: Answered[T] | Answered[BaseModel], *, items: int, detail: str
    ) -> None:
        """Say that `items` of a model's answer were replaced by the offline provider's."""
        request, response = answered.request, answered.response
        _log.info(
            "llm %s via %s: %d unusable item(s) (%s); the offline answer stands in",
            request.purpose,
            response.provider,
            items,
            detail,
        )
        if self.telemetry is not None:
            self.telemetry.emit(
                "llm_call",
                outcome="degraded",
                reason="unusable_output",
                detail=detail[:200],
                items=items,
                provider=response.provider or None,
                model=response.model or None,
                purpose=request.purpose,
                guild_id=request.guild_id,
            )


def echo_problem(text: str, examples: list[str]) -> str | None:
    """ "echo" when the text repeats the prompt's example or the schema, "empty" when blank."""
    if not text.strip():
        return "empty"
    return "echo" if echoes(text, examples) else None


def grounded_problem(
    sources: str,
    names: Sequence[str],
    *,
    keeps: Sequence[str] = (),
    dropped: str = "dropped facts",
) -> Callable[[TextOutput, list[str]], str | None]:
    """The check of a text written from `sources`: not blank, no echo of the prompt, nothing
    in it that `sources` (or `names`) does not say ("ungrounded"), and enough of each of
    `keeps` carried over (`dropped` otherwise)."""

    def problem(answer: TextOutput, examples: list[str]) -> str | None:
        if wrong := echo_problem(answer.text, examples):
            return wrong
        if not grounded(answer.text, sources, names=names):
            return "ungrounded"
        if not all(carries(answer.text, kept, names=names) for kept in keeps):
            return dropped
        return None

    return problem
