"""Domain types shared across memory code: plain data, no Discord types."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A guild message as stored: ids, not names (names are resolved when prompts are built)."""

    message_id: int
    guild_id: int
    channel_id: int
    author_id: int
    content: str
    created_at: datetime
    reply_to_id: int | None = None
    mention_ids: tuple[int, ...] = ()
    author_is_bot: bool = False
    edited_at: datetime | None = None
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Member:
    """A member of one guild with every name people may use for them."""

    guild_id: int
    user_id: int
    username: str | None = None
    global_name: str | None = None
    nickname: str | None = None
    aliases: tuple[str, ...] = field(default_factory=tuple)
    is_bot: bool = False

    @property
    def display_name(self) -> str:
        """The name the guild sees: nickname, else global name, else username, else the id."""
        return self.nickname or self.global_name or self.username or f"user {self.user_id}"

    @property
    def names(self) -> tuple[str, ...]:
        """Every distinct name this member answers to, display name first."""
        seen: list[str] = []
        for name in (self.display_name, self.nickname, self.global_name, self.username):
            if name and name not in seen:
                seen.append(name)
        for alias in self.aliases:
            if alias not in seen:
                seen.append(alias)
        return tuple(seen)
