"""LLM providers (Gemini, OpenAI-compatible, offline) behind one fallback chain, and the memory
tasks that render prompt files and validate what comes back.
"""

from __future__ import annotations

from memory.language import third_person
from memory.llm._factory import build_llm
from memory.llm.embeddings import (
    EMBEDDING_DIMENSIONS,
    Embedder,
    TokenTable,
    build_embedder,
)
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    DatabaseCapabilities,
    LLMBadOutput,
    LLMError,
    LLMRequest,
    SharedRateLimiter,
    SharedRateLimits,
    Tool,
    ToolCall,
    ToolUse,
    breaker_report,
    track_providers,
)
from memory.llm.tasks import (
    LearnedItem,
    MemoryLLM,
    PromptMember,
    PromptMessage,
    compact_lines,
    compact_transcript,
    example_texts,
    forgotten_constraints,
    history_elements,
    member_elements,
    message_elements,
    output_budget,
    reduce_elements,
    target_legend,
    unusable_text,
)

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "DatabaseCapabilities",
    "Embedder",
    "LLMBadOutput",
    "LLMError",
    "LLMRequest",
    "LearnedItem",
    "MemoryLLM",
    "OfflineProvider",
    "PromptMember",
    "PromptMessage",
    "SharedRateLimiter",
    "SharedRateLimits",
    "TokenTable",
    "Tool",
    "ToolCall",
    "ToolUse",
    "breaker_report",
    "build_embedder",
    "build_llm",
    "compact_lines",
    "compact_transcript",
    "example_texts",
    "forgotten_constraints",
    "history_elements",
    "member_elements",
    "message_elements",
    "output_budget",
    "reduce_elements",
    "target_legend",
    "third_person",
    "track_providers",
    "unusable_text",
]
