"""Recall search: anything said in a guild, found again from a natural question."""

from __future__ import annotations

from memory.language import day_label, resolve_dates
from memory.recall._asking import Asking
from memory.recall._hits import RecallHit
from memory.recall._index import EmbeddingIndex, open_embedding_index
from memory.recall._search import RecallService
from memory.recall._terms import (
    MAX_QUESTION_CHARS,
    MAX_WORDS,
    query_terms,
    was_capped,
    worth_searching,
)

__all__ = [
    "MAX_QUESTION_CHARS",
    "MAX_WORDS",
    "Asking",
    "EmbeddingIndex",
    "RecallHit",
    "RecallService",
    "day_label",
    "open_embedding_index",
    "query_terms",
    "resolve_dates",
    "was_capped",
    "worth_searching",
]
