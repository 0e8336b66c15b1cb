"""The shapes passed in and out of memory commands, and the permission rule they share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from memory.core.config_fields import FromSettings, setting
from memory.core.models import Member


@dataclass(frozen=True, slots=True)
class RepliedMessage:
    """The message a command replied to ("remember this about bob")."""

    content: str
    author_id: int | None = None
    author_name: str | None = None
    message_id: int | None = None


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The answer to send (None: stay silent) and what happened, for logs and tests."""

    reply: str | None
    kind: str
    outcome: str
    target_id: int | None = None


class PolicySource(Protocol):
    """Settings or a guild's own settings: whatever says who may forget about others."""

    @property
    def forget_others_requires_manage_guild(self) -> bool: ...


def may_change_memory(
    settings: PolicySource, *, author_id: int, target_id: int, can_manage_guild: bool
) -> bool:
    """Forgetting, undo and purge: the member themself, or Manage Server (unless the guild's
    FORGET_OTHERS_REQUIRES_MANAGE_GUILD is off). Adding facts needs no permission."""
    if author_id == target_id or can_manage_guild:
        return True
    return not settings.forget_others_requires_manage_guild


@dataclass(slots=True)
class CommandContext:
    """One command being handled: who asked, where, and with what rights."""

    guild_id: int
    author: Member
    can_manage_guild: bool
    message_id: int | None
    text: str
    known: Mapping[int, Member] = field(default_factory=dict)
    via: str = "slash"


MemorySource = Callable[[int, int], Awaitable[str | None]]
Target = Member | str


@dataclass(frozen=True, slots=True)
class CommandsConfig:
    """What memory commands read of the settings: the bot's name (the router's prompt), the
    per-member rate and the default forget policy for guilds without their own."""

    bot_name: str = setting("bot_name")
    commands_per_minute: int = setting("commands_per_minute")
    forget_others_requires_manage_guild: bool = setting("forget_others_requires_manage_guild")

    from_settings = FromSettings()
