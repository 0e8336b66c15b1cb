"""Replies: the per-channel conversation window and the composer that builds the reply prompt."""

from __future__ import annotations

from memory.replies._composer import ReplyComposer
from memory.replies._keeper import WindowKeeper
from memory.replies._message import IncomingMessage, ReplyConfig, ReplyResult, reader_of
from memory.replies._recalled import FULL_HITS
from memory.replies._tool_sources import build_tool_sources
from memory.replies._tools import ReplyToolbox, ToolSources
from memory.replies._window import ConversationWindows, Turn

__all__ = [
    "FULL_HITS",
    "ConversationWindows",
    "IncomingMessage",
    "ReplyComposer",
    "ReplyConfig",
    "ReplyResult",
    "ReplyToolbox",
    "ToolSources",
    "Turn",
    "WindowKeeper",
    "build_tool_sources",
    "reader_of",
]
