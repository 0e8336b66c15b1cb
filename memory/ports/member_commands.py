"""What members ask of the bot: remember, forget, undo, what do you know, search the past, and
the member directory those answers name people from.

Protocols, not a face: `MemoryCommands`, `FactService`, `RecallService` and `MemberDirectory`
satisfy them as they are (the type checker holds them to it wherever a `Memory` is used as a
`FrontDoor`). The facts and recall cogs, the console and the CLI's `context`/`recall` commands
see only these. A freeform command ("Bot, remember that ...") is a message addressed to the
bot: `Conversation.answer` takes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memory.commands import CommandResult, Target
from memory.core.models import Member
from memory.core.viewer import Viewer
from memory.recall import RecallHit


class Commands(Protocol):
    """Memory commands by name, each checking permissions and rate limits (`MemoryCommands`)."""

    async def slash(
        self,
        kind: str,
        guild_id: int,
        author: Member,
        target: Target,
        fact: str | None = None,
        *,
        can_manage_guild: bool = False,
    ) -> CommandResult:
        """One command by name (`remember`, `forget`, `whois`, `undo`): the shape both the
        Discord cog and the console use."""
        ...

    async def forget(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        statement: str,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult: ...

    async def undo(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult: ...


class Facts(Protocol):
    """The facts members asked the bot to remember (`FactService`)."""

    async def blob(self, guild_id: int, user_id: int) -> str:
        """The member's stored facts ('' when none)."""
        ...


class Recall(Protocol):
    """The guild's search over what was said (`RecallService`)."""

    async def search(
        self,
        guild_id: int,
        question: str,
        *,
        user_id: int | None = None,
        limit: int = 5,
        viewer: Viewer | None = None,
    ) -> list[RecallHit]:
        """The guild's messages and day summaries answering `question`, as `viewer` may see."""
        ...

    def capped(self, question: str) -> str | None:
        """The note to show when a question was too long and only its start was searched."""
        ...


class Directory(Protocol):
    """The guild's members by name and id (`MemberDirectory`)."""

    async def find(self, guild_id: int, name: str) -> list[Member]:
        """Members answering to `name` (any name or alias, case-insensitive)."""
        ...

    async def all(self, guild_id: int) -> list[Member]: ...

    async def get(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
        """The members of `user_ids` the directory knows (unknown ids are left out)."""
        ...

    async def display_names(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, str]: ...
