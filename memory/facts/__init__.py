"""Factual memory: one third-person blob per member, merged by the LLM on remember, pruned on
forget, with history, undo and forgetting that sticks.
"""

from __future__ import annotations

from memory.facts._fact_service import FactService
from memory.facts._model import (
    FactChange,
    FactError,
    FactsConfig,
    FactsFull,
    FactsUnavailable,
    StatementTooLong,
    prompt_member,
)
from memory.facts._text import identity_alias

__all__ = [
    "FactChange",
    "FactError",
    "FactService",
    "FactsConfig",
    "FactsFull",
    "FactsUnavailable",
    "StatementTooLong",
    "identity_alias",
    "prompt_member",
]
