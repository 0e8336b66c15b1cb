"""What an admin (and a member about themself) may do with the guild's memory: privacy, the
guild's settings, and which channels count as shared.

`/memory` commands, the CLI's `user`/`settings`/`channels` and the dashboard's actions see only
this face. Who may do what is checked by the caller (Discord permissions, or shell access for
the CLI); everything here is audited or telemetered by the services behind it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from db.consent import Consent
from memory.guilds import ChannelVisibility, GuildSettings, GuildSettingsCache
from memory.privacy import PrivacyDesk, PurgeReport, Subject


class Administration:
    """Privacy requests, guild settings and channel visibility, by guild and member."""

    def __init__(
        self,
        privacy: PrivacyDesk,
        guild_settings: GuildSettingsCache,
        visibility: ChannelVisibility,
    ) -> None:
        self._privacy = privacy
        self._guild_settings = guild_settings
        self._visibility = visibility

    # --- naming guilds and members ------------------------------------------------------

    async def guild(self, text: str) -> int:
        """A guild id from an id or a name; PrivacyError when unknown or ambiguous."""
        return await self._privacy.guild(text)

    async def guild_names(self, guild_ids: list[int]) -> dict[int, str]:
        return await self._privacy.guild_names(guild_ids)

    async def subject(self, guild_id: int, text: str) -> Subject:
        """A stored member from a mention, id or name; PrivacyError when unknown."""
        return await self._privacy.subject(guild_id, text)

    async def subject_or_id(self, guild_id: int, text: str, *, typed: bool = False) -> Subject:
        """Like `subject`, but a bare id is accepted even when nothing is stored for it (one
        no Discord member can have is refused when `typed` by an admin)."""
        return await self._privacy.subject_or_id(guild_id, text, typed=typed)

    # --- consent, export and purge ------------------------------------------------------

    async def consent(self, guild_id: int, user_id: int) -> Consent | None:
        return await self._privacy.consent(guild_id, user_id)

    async def opt_in(
        self, guild_id: int, user_id: int, *, actor_id: int | None, by_admin: bool
    ) -> None:
        await self._privacy.opt_in(guild_id, user_id, actor_id=actor_id, by_admin=by_admin)

    async def opt_out(
        self, subject: Subject, *, actor_id: int | None, by_admin: bool, wait: bool = False
    ) -> PurgeReport:
        """`wait`: the shared days are closed again before this returns (a command line);
        otherwise in the background (an interaction answers at once). Either way what quoted
        the member is gone when this returns."""
        return await self._privacy.opt_out(subject, actor_id=actor_id, by_admin=by_admin, wait=wait)

    async def unconsented(self, guild_id: int) -> list[int]:
        return await self._privacy.unconsented(guild_id)

    async def purge_unconsented(
        self, guild_id: int, *, actor_id: int | None, only: list[int] | None = None
    ) -> int:
        return await self._privacy.purge_unconsented(guild_id, actor_id=actor_id, only=only)

    async def preview(self, subject: Subject) -> dict[str, Any]:
        """What a purge would remove, counted per kind of row."""
        return await self._privacy.preview(subject)

    async def export(self, subject: Subject) -> dict[str, Any]:
        return await self._privacy.export(subject)

    async def purge(
        self, subject: Subject, *, actor_id: int | None = None, wait: bool = True
    ) -> PurgeReport:
        return await self._privacy.purge(subject, actor_id=actor_id, wait=wait)

    # --- the guild's settings -----------------------------------------------------------

    async def settings(self, guild_id: int) -> GuildSettings:
        return await self._guild_settings.get(guild_id)

    async def refresh_settings(self, guild_id: int) -> GuildSettings:
        """Read again from the database (another process may have changed them)."""
        return await self._guild_settings.refresh(guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Apply an admin's changes; InvalidSetting names a bad value, nothing is half-applied."""
        return await self._guild_settings.update(guild_id, **changes)

    async def search_configs(self) -> list[str]:
        """The text search configurations a guild's `language` may name."""
        return await self._guild_settings.search_configs()

    async def channels(self, guild_id: int) -> dict[int, str]:
        """The guild's channels by id, as last seen."""
        return await self._guild_settings.channels(guild_id)

    async def channel_names(self, guild_id: int, channel_ids: Iterable[int]) -> dict[int, str]:
        return await self._guild_settings.channel_names(guild_id, channel_ids)

    async def channels_named(self, guild_id: int, name: str) -> list[int]:
        return await self._guild_settings.channels_named(guild_id, name)

    # --- which channels are shared ------------------------------------------------------

    async def visibility(self, guild_id: int) -> dict[int, tuple[bool, str, str | None]]:
        """channel id -> (public, source, name) of every recorded channel."""
        return await self._visibility.channels(guild_id)

    async def public_channels(self, guild_id: int) -> frozenset[int]:
        return await self._visibility.public_channels(guild_id)

    async def mark_channel(self, guild_id: int, channel_id: int, *, public: bool) -> bool:
        """An admin's word on a channel's visibility; True when it changed."""
        return await self._visibility.mark(guild_id, channel_id, public=public)
