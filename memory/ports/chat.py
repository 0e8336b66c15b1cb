"""What Discord's events put into memory: messages, edits, deletes, members, guilds, channels.

The ingest and visibility cogs see only this face: every write is queued (the writer batches
it off the event loop) and the guild's settings are read from a cache, so an event handler
never waits on the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory.core.channels import ChannelView
from memory.core.models import ChatMessage, Member
from memory.guilds import ChannelVisibility, GuildSettings, GuildSettingsCache
from memory.ingest import BatchedWriter, StoredMessages


class ChatEvents:
    """Chat events in; False from a submit means the queue was full and the event was dropped."""

    def __init__(
        self,
        writer: BatchedWriter,
        stored: StoredMessages,
        guild_settings: GuildSettingsCache,
        visibility: ChannelVisibility,
    ) -> None:
        self._writer = writer
        self._stored = stored
        self._guild_settings = guild_settings
        self._visibility = visibility

    def submit(self, message: ChatMessage) -> bool:
        return self._writer.submit(message)

    def submit_edit(self, message: ChatMessage) -> bool:
        return self._writer.submit_edit(message)

    def submit_delete(self, guild_id: int, message_id: int) -> bool:
        return self._writer.submit_delete(guild_id, message_id)

    def submit_member(self, member: Member, *, nickname_known: bool = False) -> bool:
        return self._writer.submit_member(member, nickname_known=nickname_known)

    def submit_guild(
        self, guild_id: int, name: str | None = None, channels: Iterable[tuple[int, str]] = ()
    ) -> bool:
        return self._writer.submit_guild(guild_id, name, channels)

    async def put(self, message: ChatMessage) -> None:
        """Queue a message, waiting while the queue is full (the backfill of missed history)."""
        await self._writer.put(message)

    async def last_stored_ids(self, guild_id: int, channel_ids: Sequence[int]) -> dict[int, int]:
        """Each channel's newest stored message id: where a backfill starts."""
        return await self._stored.last_stored_ids(guild_id, channel_ids)

    async def stored_message_ids(
        self, guild_id: int, channel_id: int, *, after_id: int, up_to_id: int
    ) -> list[int]:
        """A channel's stored, not deleted message ids in (after_id, up_to_id]: what a
        reconcile compares with what Discord still returns."""
        return await self._stored.stored_message_ids(
            guild_id, channel_id, after_id=after_id, up_to_id=up_to_id
        )

    async def flush(self) -> None:
        """Wait until everything queued so far is in the database."""
        await self._writer.flush()

    @property
    def queue_depth(self) -> int:
        return self._writer.depth

    def cached_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings as cached (defaults until first read): never waits."""
        return self._guild_settings.peek(guild_id)

    async def refresh_settings(self, guild_id: int) -> GuildSettings:
        return await self._guild_settings.refresh(guild_id)

    async def record_channels(
        self, guild_id: int, channels: Sequence[ChannelView], *, source: str = "discord"
    ) -> list[int]:
        """Which channels everyone can read, as Discord says; the ids whose visibility moved."""
        return await self._visibility.record(guild_id, channels, source=source)
