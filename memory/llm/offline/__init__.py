"""The offline provider: deterministic, no network, the default for everyone without a key. It
answers every memory task from the prompt's own inputs (extractive notes, rule-based facts)."""

from __future__ import annotations

from memory.llm.offline._claims import contradicts, same_claim
from memory.llm.offline._provider import HANDLERS, OfflineProvider

__all__ = ["HANDLERS", "OfflineProvider", "contradicts", "same_claim"]
