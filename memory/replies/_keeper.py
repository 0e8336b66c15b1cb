"""What enters a channel's conversation window and what leaves it.

A message enters unless its author may not be remembered (opted out, or not opted in where the
server asks for it: `WindowGate`), or it is a forget command (it repeats the very words
forgotten). Gone words leave: a deleted message with the bot's answer to it, an edited
message's old text, an opted-out or purged member's turns, and a forgotten statement's
sentences about the member. Order is kept: a turn is announced before anything is awaited for
it, and a view waits for the turns announced before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Protocol

from memory.core.models import Member
from memory.language import is_forget_command
from memory.members import NameIndexCache, mentioned_ids, render_mentions
from memory.replies._gate import WindowGate
from memory.replies._window import ConversationWindows, Turn

if TYPE_CHECKING:
    from memory.replies._message import IncomingMessage


class MemberRows(Protocol):
    """Members by id (wired to the reply path's `MemberDirectory`)."""

    async def get(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, Member]:
        """The members of `user_ids` the guild's directory knows (unknown ids left out)."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class WindowKeeper:
    """The window's door: `observe` lets a message in; the other methods take words out."""

    windows: ConversationWindows
    gate: WindowGate
    member_rows: MemberRows
    _: KW_ONLY
    bot_name: str
    names: NameIndexCache

    async def observe(self, message: IncomingMessage, *, from_bot: bool = False) -> None:
        """A channel message joins its window: a member's (what a front end hears, answered or
        not) or, `from_bot`, the bot's own reply (kept out with the message it answers)."""
        arrived = self.windows.arriving(message.channel_id)  # before any await: order kept
        try:
            await self._add(message, from_bot=from_bot)
        finally:
            arrived()

    async def _add(self, message: IncomingMessage, *, from_bot: bool) -> None:
        if not await self.gate.admits(message, from_bot=from_bot):
            return
        if is_forget_command(message.content, bot_name=self.bot_name):
            return  # it repeats the very words forgotten (and may land after they were dropped)
        at = self.windows.clock.now()
        content = await self._rendered(message.guild_id, message.content)
        turn = Turn(
            message.message_id,
            message.author_id,
            message.author_name,
            content,
            at,
            reply_to=message.reply_to_id,
        )
        await self.windows.add(message.channel_id, turn, guild_id=message.guild_id)

    async def _rendered(self, guild_id: int, content: str) -> str:
        mentioned = mentioned_ids(content)
        known = await self.member_rows.get(guild_id, mentioned) if mentioned else {}
        names = {uid: member.display_name for uid, member in known.items()}
        return render_mentions(content, names)

    async def messages_deleted(self, message_ids: Sequence[int]) -> int:
        """Deleted messages (and the bot's answers to them) leave the window."""
        return await self.windows.drop_messages(message_ids)

    async def message_edited(self, guild_id: int, message_id: int, content: str) -> bool:
        """The window keeps the new text of an edited message, never the old."""
        return await self.windows.edit_message(message_id, await self._rendered(guild_id, content))

    async def member_gone(self, guild_id: int, user_id: int) -> int:
        """An opted-out or purged member: their turns leave; an opted-out one's next ones stay
        out (the gate reads the consent the caller's change already dropped)."""
        return await self.windows.drop_author(guild_id, user_id)

    async def statement_forgotten(
        self, guild_id: int, user_id: int, statement: str, names: Sequence[str]
    ) -> int:
        """A forgotten statement leaves the window (the member's turns, turns naming them);
        names are read again (a forgotten alias no longer points at the member)."""
        self.names.invalidate(guild_id)
        return await self.windows.drop_restating(guild_id, user_id, statement, names)
