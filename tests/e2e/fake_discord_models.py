"""Data and payload shapes of the fake Discord (tests/e2e/fake_discord.py): ids, permissions,
members, channels, and the guild/application payloads discord.py parses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
ALL_PERMISSIONS = (1 << 50) - 1
# view channel, send messages, embed links, attach files, read history, add reactions,
# use application commands, change nickname
DEFAULT_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 6)
DEFAULT_PERMISSIONS |= (1 << 31) | (1 << 26)
VIEW_CHANNEL = 1 << 10
MANAGE_GUILD = 1 << 5

# Realistic 18-digit snowflakes: discord.py only recognises <@id> mentions of 15-20 digits.
GUILD_ID = 800000000000001000
APPLICATION_ID = 800000000000004000
OWNER_ID = 800000000000009999
GENERAL_ID, RANDOM_ID, SECRET_ID = 800000000000002001, 800000000000002002, 800000000000002003
ALICE_ID, BOB_ID, OTHERBOT_ID = 800000000000003001, 800000000000003002, 800000000000003003

OPTION_TYPES = {bool: 5, int: 4, float: 10, str: 3}


@dataclass
class FakeMember:
    """A user and their membership in the fake guild."""

    id: int
    username: str
    global_name: str | None = None
    nick: str | None = None
    bot: bool = False
    roles: list[int] = field(default_factory=list)

    def user_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def member_payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": self.nick,
            "roles": [str(r) for r in self.roles],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "avatar": None,
        }
        if with_user:
            data["user"] = self.user_payload()
        return data


@dataclass
class FakeRole:
    """A guild role (the @everyone role is the guild's own id and lives in FakeGuild)."""

    id: int
    name: str
    permissions: int = 0
    position: int = 1

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass
class Overwrite:
    """A channel permission overwrite for a role (kind 0) or a member (kind 1)."""

    id: int
    allow: int = 0
    deny: int = 0
    kind: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.kind,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass
class FakeChannel:
    id: int
    name: str
    readable: bool = True  # False: @everyone is denied View Channel
    type: int = 0  # GUILD_TEXT; 11 is a public thread, 12 a private one
    parent_id: int | None = None  # threads: the channel they live in
    overwrites: list[Overwrite] = field(default_factory=list)


def channel_payload(channel: FakeChannel, guild_id: int, position: int = 0) -> dict[str, Any]:
    """A guild channel as GUILD_CREATE / CHANNEL_CREATE / CHANNEL_UPDATE carry it: a channel
    that is not `readable` denies View Channel to @everyone, on top of its own overwrites."""
    overwrites = [overwrite.payload() for overwrite in channel.overwrites]
    if not channel.readable:
        overwrites.append({"id": str(guild_id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)})
    return {
        "id": str(channel.id),
        "type": channel.type,
        "name": channel.name,
        "position": position,
        "guild_id": str(guild_id),
        "permission_overwrites": overwrites,
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "rate_limit_per_user": 0,
        "last_message_id": None,
    }


def thread_payload(thread: FakeChannel, guild_id: int) -> dict[str, Any]:
    """A thread as GET /guilds/{id}/threads/active and THREAD_CREATE carry it."""
    return {
        "id": str(thread.id),
        "type": thread.type,
        "guild_id": str(guild_id),
        "parent_id": str(thread.parent_id),
        "owner_id": str(ALICE_ID),
        "name": thread.name,
        "last_message_id": None,
        "message_count": 0,
        "member_count": 1,
        "rate_limit_per_user": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": "2024-01-01T00:00:00+00:00",
            "locked": False,
        },
    }


@dataclass
class FakeAttachment:
    filename: str
    content_type: str | None = None
    size: int = 1024


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel]
    members: dict[int, FakeMember] = field(default_factory=dict)
    everyone_permissions: int = DEFAULT_PERMISSIONS
    roles: list[FakeRole] = field(default_factory=list)  # besides @everyone


def guild_payload(guild: FakeGuild) -> dict[str, Any]:
    """GUILD_CREATE data: channels (unreadable ones deny VIEW_CHANNEL to @everyone), members."""
    channels = [
        channel_payload(channel, guild.id, position)
        for position, channel in enumerate(guild.channels)
    ]
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "owner_id": str(guild.owner_id),
        "roles": [everyone_role(guild).payload(), *(role.payload() for role in guild.roles)],
        "emojis": [],
        "stickers": [],
        "features": [],
        "member_count": len(guild.members),
        "members": [m.member_payload() for m in guild.members.values()],
        "channels": channels,
        "threads": [],
        "voice_states": [],
        "presences": [],
        "large": False,
        "unavailable": False,
        "joined_at": "2024-01-01T00:00:00+00:00",
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "system_channel_id": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "nsfw_level": 0,
    }


def everyone_role(guild: FakeGuild) -> FakeRole:
    return FakeRole(guild.id, "@everyone", guild.everyone_permissions, position=0)


def application_payload(application_id: int, name: str, owner_id: int) -> dict[str, Any]:
    """GET /oauth2/applications/@me: what discord.py reads at login."""
    return {
        "id": str(application_id),
        "name": name,
        "icon": None,
        "description": "",
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": {
            "id": str(owner_id),
            "username": "owner",
            "discriminator": "0",
            "avatar": None,
        },
        "verify_key": "0" * 64,
        "flags": 0,
    }
