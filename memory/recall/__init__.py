"""Recall search: anything said in a guild, found again from a natural question."""

from __future__ import annotations

from memory.recall._search import RecallHit, RecallService, query_terms, to_tsquery

__all__ = ["RecallHit", "RecallService", "query_terms", "to_tsquery"]
