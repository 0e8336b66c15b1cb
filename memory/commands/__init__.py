"""Memory commands: remember, forget, what-do-you-know and undo, from a member's words to the
bot's answer (intent, member resolution, permissions, rate limits, wording).
"""

from __future__ import annotations

from memory.commands._memory_commands import MemoryCommands
from memory.commands._operations import CommandOperations
from memory.commands._types import CommandResult, CommandsConfig, RepliedMessage, Target

__all__ = [
    "CommandOperations",
    "CommandResult",
    "CommandsConfig",
    "MemoryCommands",
    "RepliedMessage",
    "Target",
]
