"""A channel's visibility as the Discord adapter sees it: who may read a channel decides
whether its words may become shared memory (notes, summaries, learned facts, contexts)."""

from __future__ import annotations

from dataclasses import dataclass

# `memory_sources` of a guild: shared memory from public channels only (the default), or from
# every stored channel (servers where every member sees everything).
MEMORY_SOURCES = ("public", "all")


@dataclass(frozen=True, slots=True)
class ChannelView:
    """One channel or thread: `public` when @everyone may view it (a thread: its parent is
    public and the thread is not private). `parent_id` is a thread's channel."""

    channel_id: int
    public: bool
    parent_id: int | None = None
    kind: str = "text"
    name: str | None = None
