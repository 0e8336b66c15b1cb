"""LLM providers (Gemini, OpenAI-compatible, offline) behind one fallback chain, and the memory
tasks that render prompt files and validate what comes back.
"""

from __future__ import annotations

from memory.llm._base import LLMBadOutput, LLMError
from memory.llm._breaker import breaker_report
from memory.llm._chain import track_providers
from memory.llm._claims import contradicts, same_claim, third_person
from memory.llm._embeddings import EMBEDDING_DIMENSIONS, Embedder, build_embedder
from memory.llm._factory import build_llm
from memory.llm._offline import OfflineProvider
from memory.llm._schemas import LearnedItem, PromptMember, PromptMessage
from memory.llm._shared_limit import SharedRateLimiter, SharedRateLimits
from memory.llm._tasks import (
    MemoryLLM,
    forgotten_constraints,
    history_elements,
    member_elements,
    message_elements,
    reduce_elements,
)
from memory.llm._transcript import compact_lines, compact_transcript, target_legend

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "Embedder",
    "LLMBadOutput",
    "LLMError",
    "LearnedItem",
    "MemoryLLM",
    "OfflineProvider",
    "PromptMember",
    "PromptMessage",
    "SharedRateLimiter",
    "SharedRateLimits",
    "breaker_report",
    "build_embedder",
    "build_llm",
    "compact_lines",
    "compact_transcript",
    "contradicts",
    "forgotten_constraints",
    "history_elements",
    "member_elements",
    "message_elements",
    "reduce_elements",
    "same_claim",
    "target_legend",
    "third_person",
    "track_providers",
]
