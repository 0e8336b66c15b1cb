"""What an admin (and a member about themself) may do with the guild's memory: privacy, the
guild's settings, and which channels count as shared.

Protocols, not a face: `PrivacyDesk`, `GuildSettingsCache` and `ChannelVisibility` satisfy them
as they are (the type checker holds them to it wherever a `Memory` is used as a `FrontDoor`).
`/memory` commands, the CLI's `user`/`settings`/`channels` and the dashboard's actions see only
these. Who may do what is checked by the caller (Discord permissions, or shell access for the
CLI); everything here is audited or telemetered by the services behind it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from memory.core.channels import ChannelView
from memory.guilds import GuildSettings
from memory.members import Consent
from memory.privacy import PurgeReport, Subject


class PrivacyRequests(Protocol):
    """Naming guilds and members; consent, export and purge (`PrivacyDesk`)."""

    async def guild(self, text: str) -> int:
        """A guild id from an id or a name; PrivacyError when unknown or ambiguous."""
        ...

    async def guild_names(self, guild_ids: list[int]) -> dict[int, str]: ...

    async def subject(self, guild_id: int, text: str) -> Subject:
        """A stored member from a mention, id or name; PrivacyError when unknown."""
        ...

    async def subject_or_id(self, guild_id: int, text: str, *, typed: bool = False) -> Subject:
        """Like `subject`, but a bare id is accepted even when nothing is stored for it (one
        no Discord member can have is refused when `typed` by an admin)."""
        ...

    async def consent(self, guild_id: int, user_id: int) -> Consent | None: ...

    async def opt_in(
        self, guild_id: int, user_id: int, *, actor_id: int | None, by_admin: bool
    ) -> None: ...

    async def opt_out(
        self, subject: Subject, *, actor_id: int | None, by_admin: bool, wait: bool = False
    ) -> PurgeReport:
        """`wait`: the shared days are closed again before this returns (a command line);
        otherwise in the background (an interaction answers at once). Either way what quoted
        the member is gone when this returns."""
        ...

    async def unconsented(self, guild_id: int) -> list[int]: ...

    async def purge_unconsented(
        self, guild_id: int, *, actor_id: int | None, only: list[int] | None = None
    ) -> int: ...

    async def preview(self, subject: Subject) -> dict[str, Any]:
        """What a purge would remove, counted per kind of row."""
        ...

    async def export(self, subject: Subject) -> dict[str, Any]: ...

    async def purge(
        self, subject: Subject, *, actor_id: int | None = None, wait: bool = True
    ) -> PurgeReport: ...


class GuildConfiguration(Protocol):
    """The guild's settings and channel names (`GuildSettingsCache`)."""

    def peek(self, guild_id: int) -> GuildSettings:
        """As cached (defaults until first read): never waits."""
        ...

    async def get(self, guild_id: int) -> GuildSettings: ...

    async def refresh(self, guild_id: int) -> GuildSettings:
        """Read again from the database (another process may have changed them)."""
        ...

    async def update(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Apply an admin's changes; InvalidSetting names a bad value, nothing is half-applied."""
        ...

    async def search_configs(self) -> list[str]:
        """The text search configurations a guild's `language` may name."""
        ...

    async def channels(self, guild_id: int) -> dict[int, str]:
        """The guild's channels by id, as last seen."""
        ...

    async def channel_names(self, guild_id: int, channel_ids: Iterable[int]) -> dict[int, str]: ...

    async def channels_named(self, guild_id: int, name: str) -> list[int]: ...


class SharedChannels(Protocol):
    """Which channels everyone can read, so shared memory is built from them
    (`ChannelVisibility`)."""

    async def record(
        self, guild_id: int, channels: Sequence[ChannelView], *, source: str = "discord"
    ) -> list[int]:
        """What Discord says of these channels; the ids whose visibility changed."""
        ...

    async def channels(self, guild_id: int) -> dict[int, tuple[bool, str, str | None]]:
        """channel id -> (public, source, name) of every recorded channel."""
        ...

    async def public_channels(self, guild_id: int) -> frozenset[int]: ...

    async def mark(self, guild_id: int, channel_id: int, *, public: bool) -> bool:
        """An admin's word on a channel's visibility; True when it changed."""
        ...
