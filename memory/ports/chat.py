"""What Discord's events put into memory: messages, edits, deletes, members, guilds, and the
stored history a backfill starts from; and what a channel's conversation window hears.

Protocols, not a face: `BatchedWriter`, `StoredMessages` and `WindowKeeper` satisfy them as they
are (the type checker holds them to it wherever a `Memory` is used as a `FrontDoor`). The ingest
and replies cogs, the backfill and the console see only these: every write is queued (the writer
batches it off the event loop), so an event handler never waits on the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from memory.core.models import ChatMessage, Member
from memory.replies import IncomingMessage


class ChatIntake(Protocol):
    """Chat events in (`BatchedWriter`); False from a submit means the queue was full and the
    event was dropped."""

    def submit(self, message: ChatMessage) -> bool: ...

    def submit_edit(self, message: ChatMessage) -> bool: ...

    def submit_delete(self, guild_id: int, message_id: int) -> bool: ...

    def submit_member(self, member: Member, *, nickname_known: bool = False) -> bool: ...

    def submit_guild(
        self, guild_id: int, name: str | None = None, channels: Iterable[tuple[int, str]] = ()
    ) -> bool: ...

    async def put(self, message: ChatMessage) -> None:
        """Queue a message, waiting while the queue is full (the backfill of missed history)."""
        ...

    async def flush(self) -> None:
        """Wait until everything queued so far is in the database."""
        ...

    @property
    def depth(self) -> int:
        """Operations queued and not yet written."""
        ...


class StoredHistory(Protocol):
    """What is stored of a channel, once the writer caught up (`StoredMessages`)."""

    async def last_stored_ids(self, guild_id: int, channel_ids: Sequence[int]) -> dict[int, int]:
        """Each channel's newest stored message id: where a backfill starts."""
        ...

    async def stored_message_ids(
        self, guild_id: int, channel_id: int, *, after_id: int, up_to_id: int
    ) -> list[int]:
        """A channel's stored, not deleted message ids in (after_id, up_to_id]: what a
        reconcile compares with what Discord still returns."""
        ...


class ChannelWindow(Protocol):
    """The running window of each channel a reply is written from (`WindowKeeper`): every
    member message joins it, answered or not; edits and deletes reach it at once."""

    async def observe(self, message: IncomingMessage) -> None:
        """A member's message joins its channel's window (unless they may not be remembered)."""
        ...

    async def message_edited(self, guild_id: int, message_id: int, content: str) -> bool:
        """The window keeps an edited message's new text, never the old."""
        ...

    async def messages_deleted(self, message_ids: Sequence[int]) -> int:
        """Deleted messages (and the bot's answers to them) leave the window."""
        ...
