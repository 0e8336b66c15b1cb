"""A counting fake LLM for benchmarks: the offline provider's answers, a model's latency.

Content comes from `OfflineProvider` (plausible, schema-valid structured output for every
purpose); this wrapper adds a configurable delay per call, counts calls by purpose and estimates
tokens the way a bill would (prompt in, answer out), so the benchmarks can price a design
without a network or a key.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel

from memory.llm.offline import OfflineProvider, count_tokens, tokenizer_name
from memory.llm.providers._base import LLMProvider, LLMRequest, LLMResponse, Purpose

__all__ = ["TOKENIZER", "CountingProvider", "Usage", "fast_tokens"]


# The product's tokenizer loader (memory.llm.offline): o200k_base from `bpe-openai` (the `bench`
# extra) when installed, else the chars/4 estimate; named so figures say which.
TOKENIZER = tokenizer_name()


def fast_tokens(text: str) -> int:
    """Tokens of `text` with the bench's tokenizer (`TOKENIZER` names it)."""
    return count_tokens(text)


_log = logging.getLogger(__name__)


@cache
def _schema_tokens(schema: type[BaseModel]) -> int:
    """Tokens of a response schema as JSON (what a provider receives beside the prompt)."""
    return fast_tokens(json.dumps(schema.model_json_schema(), separators=(",", ":")))


@dataclass
class Usage:
    """Calls and estimated tokens by purpose."""

    calls: Counter[str] = field(default_factory=Counter)
    input_tokens: Counter[str] = field(default_factory=Counter)
    output_tokens: Counter[str] = field(default_factory=Counter)
    days: Counter[str] = field(default_factory=Counter)  # daily_summary calls per day
    # The JSON schema a structured call sends beside its prompt: Gemini bills it as input, a
    # local server turns it into a grammar. Kept apart: no ratio counts it.
    schema_tokens: Counter[str] = field(default_factory=Counter)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def total_tokens(self) -> int:
        return sum(self.input_tokens.values()) + sum(self.output_tokens.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": dict(self.calls),
            "input_tokens": dict(self.input_tokens),
            "output_tokens": dict(self.output_tokens),
        }


class CountingProvider(LLMProvider):
    """Answers like `inner` (default: offline) after `latency` seconds; counts everything."""

    name = "bench"

    def __init__(self, inner: LLMProvider | None = None, *, latency: float = 0.0) -> None:
        self.inner = inner or OfflineProvider()
        self.latency = latency
        self.usage = Usage()
        self.in_flight = 0
        self.max_in_flight = 0

    def model_for(self, purpose: Purpose) -> str:
        return f"bench-{self.inner.model_for(purpose) or 'model'}"

    def reset(self) -> Usage:
        """Start counting afresh; returns what was counted so far."""
        usage, self.usage = self.usage, Usage()
        self.max_in_flight = 0
        return usage

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            response = await self.inner.complete(request)
        finally:
            self.in_flight -= 1
        prompt_tokens = fast_tokens(request.prompt) + fast_tokens(request.system or "")
        answer_tokens = fast_tokens(response.text)
        usage = self.usage
        usage.calls[request.purpose] += 1
        usage.input_tokens[request.purpose] += prompt_tokens
        usage.output_tokens[request.purpose] += answer_tokens
        if request.schema is not None:
            usage.schema_tokens[request.purpose] += _schema_tokens(request.schema)
        if request.purpose == "daily_summary":
            usage.days[str(request.inputs.get("day"))] += 1
        return LLMResponse(
            text=response.text,
            parsed=response.parsed,
            provider=self.name,
            model=self.model_for(request.purpose),
            input_tokens=prompt_tokens,
            output_tokens=answer_tokens,
        )
