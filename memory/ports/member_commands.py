"""What members ask of the bot: remember, forget, undo, what do you know, and search the past.

The facts and recall cogs, the console and the CLI's `context`/`recall` commands see only this
face. Each command checks permissions and rate limits inside `MemoryCommands`; what the member
reads back is a `CommandResult`.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.commands import CommandResult, MemoryCommands, RepliedMessage, Target
from memory.core.models import Member
from memory.core.viewer import Viewer
from memory.facts import FactService
from memory.members import MemberDirectory
from memory.recall import RecallHit, RecallService


class MemberCommands:
    """Member commands, the context they read, the guild's search and its member directory."""

    def __init__(
        self,
        commands: MemoryCommands,
        facts: FactService,
        recall: RecallService,
        members: MemberDirectory,
    ) -> None:
        self._commands = commands
        self._facts = facts
        self._recall = recall
        self._members = members

    async def handle(
        self,
        guild_id: int,
        author: Member,
        text: str,
        replied_to: RepliedMessage | None = None,
        author_can_manage_guild: bool = False,
        message_id: int | None = None,
        mentions: Sequence[Member] = (),
    ) -> CommandResult | None:
        """A freeform message addressed to the bot; None when it is not a memory command."""
        return await self._commands.handle(
            guild_id,
            author,
            text,
            replied_to,
            author_can_manage_guild,
            message_id,
            mentions,
        )

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
        return await self._commands.slash(
            kind, guild_id, author, target, fact, can_manage_guild=can_manage_guild
        )

    async def forget(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        statement: str,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult:
        return await self._commands.forget(
            guild_id,
            author,
            target,
            statement,
            can_manage_guild=can_manage_guild,
            message_id=message_id,
        )

    async def undo(
        self,
        guild_id: int,
        author: Member,
        target: Target,
        *,
        can_manage_guild: bool = False,
        message_id: int | None = None,
    ) -> CommandResult:
        return await self._commands.undo(
            guild_id, author, target, can_manage_guild=can_manage_guild, message_id=message_id
        )

    async def facts(self, guild_id: int, user_id: int) -> str:
        """The member's stored facts blob ('' when none)."""
        return await self._facts.blob(guild_id, user_id)

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
        return await self._recall.search(
            guild_id, question, user_id=user_id, limit=limit, viewer=viewer
        )

    @staticmethod
    def capped(question: str) -> str | None:
        """The note to show when a question was too long and only its start was searched."""
        return RecallService.capped(question)

    async def find_members(self, guild_id: int, name: str) -> list[Member]:
        return await self._members.find(guild_id, name)

    async def members(self, guild_id: int) -> list[Member]:
        return await self._members.all(guild_id)

    async def known_members(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
        """The members of `user_ids` the directory knows (unknown ids are left out)."""
        return await self._members.get(guild_id, user_ids)

    async def display_names(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, str]:
        return await self._members.display_names(guild_id, user_ids)
