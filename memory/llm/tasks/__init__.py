"""The memory tasks: each renders a prompt file (prompts/<name>.xml) into one LLMRequest and
validates what comes back against its schema."""

from __future__ import annotations

from memory.llm.tasks._calls import output_budget
from memory.llm.tasks._elements import (
    by_member,
    forgotten_constraints,
    history_elements,
    member_elements,
    member_keys,
    message_elements,
    reduce_elements,
    split_keyed,
)
from memory.llm.tasks._schemas import (
    DailySummaries,
    ForgetOutput,
    Intent,
    LearnedItem,
    PromptMember,
    PromptMessage,
    TextOutput,
)
from memory.llm.tasks._tasks import MemoryLLM
from memory.llm.tasks._transcript import compact_lines, compact_transcript, target_legend
from memory.llm.tasks._vetting import example_texts, unusable_text

__all__ = [
    "DailySummaries",
    "ForgetOutput",
    "Intent",
    "LearnedItem",
    "MemoryLLM",
    "PromptMember",
    "PromptMessage",
    "TextOutput",
    "by_member",
    "compact_lines",
    "compact_transcript",
    "example_texts",
    "forgotten_constraints",
    "history_elements",
    "member_elements",
    "member_keys",
    "message_elements",
    "output_budget",
    "reduce_elements",
    "split_keyed",
    "target_legend",
    "unusable_text",
]
