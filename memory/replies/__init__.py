"""Replies: the per-channel conversation window and the composer that builds the reply prompt."""

from __future__ import annotations

from memory.replies._composer import IncomingMessage, ReplyComposer, ReplyConfig, ReplyResult
from memory.replies._window import ConversationWindows, Turn

__all__ = [
    "ConversationWindows",
    "IncomingMessage",
    "ReplyComposer",
    "ReplyConfig",
    "ReplyResult",
    "Turn",
]
