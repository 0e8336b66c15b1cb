"""Recall search: anything said in a guild, found again from a natural question."""

from __future__ import annotations

from memory.recall._index import EmbeddingIndex, open_embedding_index
from memory.recall._search import RecallHit, RecallService, query_terms, to_tsquery

__all__ = [
    "EmbeddingIndex",
    "RecallHit",
    "RecallService",
    "open_embedding_index",
    "query_terms",
    "to_tsquery",
]
