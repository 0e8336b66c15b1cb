"""What the bot says: a reply composed from memory, and the conversation it keeps hearing.

The replies cog (and the console) see only this face. `reply_to` is the reply path's one entry:
`ReplyComposer.compose` gathers the window, the members' memories and what recall finds, fits
them to the prompt budget and asks the LLM.
"""

from __future__ import annotations

from collections.abc import Sequence

from db.consent import Consent
from memory.core.ratelimit import Admission
from memory.guilds import GuildSettings, GuildSettingsCache
from memory.members import MemberConsent
from memory.replies import IncomingMessage, ReplyResult

# From its own module (not the package face) so the reply path can be followed by name from
# the cog to the composer; pyproject.toml allows this one import.
from memory.replies._composer import ReplyComposer


class Conversation:
    """Replies, and the running window of each channel they are written from."""

    def __init__(
        self,
        composer: ReplyComposer,
        guild_settings: GuildSettingsCache,
        consent: MemberConsent,
    ) -> None:
        self._composer = composer
        self._guild_settings = guild_settings
        self._consent = consent

    @property
    def bot_user_id(self) -> int | None:
        return self._composer.bot_user_id

    @bot_user_id.setter
    def bot_user_id(self, user_id: int | None) -> None:
        """Known once the bot has logged in; its own messages are then told apart."""
        self._composer.bot_user_id = user_id

    def admission(self, message: IncomingMessage) -> Admission:
        """May this message get a reply now (per-member and per-channel rate limits)?"""
        return self._composer.admit(message)

    @property
    def busy(self) -> bool:
        """A burst of replies is composing: the typing indicator is skipped."""
        return self._composer.busy

    async def reply_to(self, message: IncomingMessage) -> ReplyResult:
        """The bot's answer to a message addressed to it (`ReplyComposer.compose`)."""
        return await self._composer.compose(message)

    async def hear(self, message: IncomingMessage) -> None:
        """A message the bot heard but does not answer still joins the channel's window."""
        await self._composer.observe(message)

    async def message_edited(self, guild_id: int, message_id: int, content: str) -> bool:
        return await self._composer.keeper.message_edited(guild_id, message_id, content)

    async def messages_deleted(self, message_ids: Sequence[int]) -> int:
        return await self._composer.keeper.messages_deleted(message_ids)

    def cached_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings as cached (ignored channels, storage mode): never waits."""
        return self._guild_settings.peek(guild_id)

    async def consent(self, guild_id: int, user_id: int) -> Consent | None:
        """A member's stored choice (None: never asked), read from a short-lived cache."""
        return await self._consent.consent(guild_id, user_id)
