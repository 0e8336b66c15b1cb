"""The offline provider: deterministic, no network, the default for everyone without a key. It
answers every memory task from the prompt's own inputs (extractive notes, rule-based facts)."""

from __future__ import annotations

from memory.llm.offline._provider import HANDLERS, OfflineProvider
from memory.llm.offline._tokens import count_tokens, estimated_tokens, tokenizer_name

__all__ = [
    "HANDLERS",
    "OfflineProvider",
    "count_tokens",
    "estimated_tokens",
    "tokenizer_name",
]
