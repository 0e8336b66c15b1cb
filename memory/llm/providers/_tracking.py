"""Which providers answered the LLM calls made inside a block (a context variable the chain
appends to)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

answered_by: ContextVar[list[str] | None] = ContextVar("llmanswered_by", default=None)


@contextmanager
def track_providers() -> Iterator[list[str]]:
    """Collect which providers answered the LLM calls made inside the block.

    Lets a caller tell a real model's answer from a fallback's without changing any task
    signature, e.g. to avoid persisting a daily summary the offline fallback produced while
    Gemini was briefly down:

        with track_providers() as answered:
            notes, learned = await llm.summaries.read_stretch(...)
        degraded = "offline" in answered
    """
    answered: list[str] = []
    token = answered_by.set(answered)
    try:
        yield answered
    finally:
        answered_by.reset(token)
