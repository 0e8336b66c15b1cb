"""What every memory task shares: the provider, its prompt limits, one validated call."""

from __future__ import annotations

import logging
from typing import TypeVar

from pydantic import BaseModel

from memory.llm.providers import LLMBadOutput, LLMProvider, LLMRequest, Purpose

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


class TaskBase:
    """The provider (usually the fallback chain) and the structured call every task makes."""

    def __init__(self, provider: LLMProvider) -> None:
        self.provider = provider

    def prompt_token_limit(self, purpose: Purpose) -> int | None:
        """Input tokens a prompt for `purpose` may hold (None: no known limit)."""
        per_purpose = getattr(self.provider, "token_limit_for", None)
        if per_purpose is not None:
            return per_purpose(purpose)
        return self.provider.prompt_token_limit

    async def _structured(
        self,
        purpose: Purpose,
        prompt: str,
        schema: type[T],
        inputs: dict[str, object],
        *,
        guild_id: int | None = None,
        temperature: float = 0.0,
    ) -> T:
        request = LLMRequest(
            purpose=purpose,
            prompt=prompt,
            schema=schema,
            temperature=temperature,
            inputs=inputs,
            guild_id=guild_id,
        )
        response = await self.provider.complete(request)
        parsed = response.parsed
        if not isinstance(parsed, schema):
            raise LLMBadOutput(f"{purpose}: provider returned no {schema.__name__}")
        return parsed
