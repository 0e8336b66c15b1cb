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

__all__ = [
    "FactChange",
    "FactError",
    "FactService",
    "FactsConfig",
    "FactsFull",
    "FactsUnavailable",
    "StatementTooLong",
    "prompt_member",
]
