"""Packing many members into as few prompts as fit the model: one call per pack.

The closing batches (condensing long days, rolling narratives) grow with the guild; a prompt
that outgrows a small local model's context fails as a whole. Each pack stays within the
tighter of the model's prompt limit (`chars_within_limit`, the safe side) and
DAILY_PROMPT_MAX_CHARS, less the template's own length.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

from memory.core.purposes import Purpose
from memory.core.tokens import chars_within_limit
from memory.llm import MemoryLLM
from prompts.loader import template

_log = logging.getLogger(__name__)

T = TypeVar("T")


def prompt_chars(llm: MemoryLLM, purpose: Purpose, max_chars: int | None) -> int | None:
    """Characters one prompt for `purpose` may hold: the tighter of the model's prompt limit
    and `max_chars` (DAILY_PROMPT_MAX_CHARS); None when neither is known."""
    limits = []
    tokens = llm.calls.prompt_token_limit(purpose)
    if tokens is not None:
        limits.append(chars_within_limit(tokens))
    if max_chars is not None:
        limits.append(max_chars)
    return min(limits) if limits else None


def prompt_budget(
    llm: MemoryLLM, purpose: Purpose, template_name: str, max_chars: int | None
) -> int | None:
    """Characters of members one prompt may hold (None: no known limit)."""
    limit = prompt_chars(llm, purpose, max_chars)
    return limit - len(template(template_name)) if limit is not None else None


def pack(items: Sequence[T], size: Callable[[T], int], budget: int | None) -> list[list[T]]:
    """Consecutive items in packs whose sizes add up to at most `budget` (an item larger than
    the budget goes alone: the model may still take it, and it is never dropped)."""
    if budget is None:
        return [list(items)] if items else []
    packs: list[list[T]] = []
    current: list[T] = []
    used = 0
    for item in items:
        cost = size(item)
        if current and used + cost > budget:
            packs.append(current)
            current, used = [], 0
        current.append(item)
        used += cost
    if current:
        packs.append(current)
    return packs
