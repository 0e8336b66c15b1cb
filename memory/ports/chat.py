"""What Discord's events put into memory: messages, edits, deletes, members, guilds, and the
stored history a backfill starts from.

Protocols, not a face: `BatchedWriter` and `StoredMessages` satisfy them as they are (the type
checker holds them to it wherever a `Memory` is used as a `FrontDoor`). The ingest cog, the
backfill and the console see only these: every write is queued (the writer batches it off the
event loop), so an event handler never waits on the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from memory.core.models import ChatMessage, Member


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
