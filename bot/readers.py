"""Who can read what, from discord.py's permission resolution: the channels a member can read
now (cached per guild and member, resolved once per role set), which channels @everyone can
read, and the `Viewer` of a search or a reply built from them.

Why here: permissions are Discord's business (roles, overwrites, private threads); memory only
receives the answer, a set of channel ids (`memory.core.viewer.Viewer`). The cache is dropped
for a member when their roles change and for the whole guild when a role, a channel or a thread
changes (the visibility cog calls `forget_member` / `forget_guild`).
"""

from __future__ import annotations

import logging
from typing import TypeGuard

import discord
from cachetools import LRUCache

from memory.core.channels import ChannelView
from memory.core.viewer import Viewer

_log = logging.getLogger(__name__)

Channel = discord.abc.GuildChannel | discord.Thread

# Members whose readable channels are kept, per guild (the least recently asked go first).
MEMBERS_PER_GUILD = 5_000


def has_messages(channel: object) -> TypeGuard[Channel]:
    """Guild channels and threads that hold messages (not categories, nor the partial channel
    objects discord.py makes for channels it has not cached)."""
    if isinstance(channel, discord.Thread):
        return True
    return isinstance(channel, discord.abc.GuildChannel) and isinstance(
        channel, discord.abc.Messageable | discord.ForumChannel
    )


def is_public(channel: Channel) -> bool:
    """Whether @everyone can view the channel: for a thread, its parent is public and the
    thread is not private (a private thread's readers are its members)."""
    guild = channel.guild
    if isinstance(channel, discord.Thread):
        parent = channel.parent
        if parent is None or channel.is_private():
            return False
        return is_public(parent)
    return channel.permissions_for(guild.default_role).read_messages


def channel_view(channel: Channel) -> ChannelView:
    """What memory records of a channel's visibility."""
    if isinstance(channel, discord.Thread):
        kind = "private_thread" if channel.is_private() else "thread"
        return ChannelView(channel.id, is_public(channel), channel.parent_id, kind, channel.name)
    kind = str(getattr(channel.type, "name", "text"))
    return ChannelView(channel.id, is_public(channel), None, kind, channel.name)


def guild_channels(guild: discord.Guild) -> list[Channel]:
    """Every channel and known thread of the guild that holds messages."""
    return [*(c for c in guild.channels if has_messages(c)), *guild.threads]


def can_read(channel: Channel, member: discord.Member) -> bool:
    """discord.py's resolution (roles, overwrites, administrator, owner); a private thread
    also needs membership (or Manage Threads on its parent)."""
    if not channel.permissions_for(member).read_messages:
        return False
    if isinstance(channel, discord.Thread) and channel.is_private():
        if channel.owner_id == member.id or any(m.id == member.id for m in channel.members):
            return True
        return channel.permissions_for(member).manage_threads
    return True


class ChannelReaders:
    """Readable channels per (guild, member) and public channels per guild, computed from the
    client's cache and kept until an event says they may have changed."""

    def __init__(self) -> None:
        self._members: dict[int, LRUCache[int, frozenset[int]]] = {}
        self._public: dict[int, frozenset[int]] = {}
        # Members with the same roles read the same channels (private threads aside), unless
        # an overwrite names one of them: resolved once per role set, not once per member.
        self._shapes: dict[int, LRUCache[tuple[int, ...], frozenset[int]]] = {}
        self._named: dict[int, frozenset[int]] = {}  # members named in an overwrite

    def readable(self, guild: discord.Guild, member: discord.abc.User) -> frozenset[int]:
        """The ids of the channels and threads `member` can read now."""
        cache = self._members.setdefault(guild.id, LRUCache(maxsize=MEMBERS_PER_GUILD))
        found = cache.get(member.id)
        if found is None:
            resolved = member if isinstance(member, discord.Member) else guild.get_member(member.id)
            if resolved is None:  # not a member we know: only what everyone can read
                return self.public(guild)
            found = self._resolve(guild, resolved)
            cache[member.id] = found
        return found

    def _resolve(self, guild: discord.Guild, member: discord.Member) -> frozenset[int]:
        """Channels by the member's role set (shared), private threads by the member."""
        private = frozenset(
            thread.id
            for thread in guild.threads
            if thread.is_private() and can_read(thread, member)
        )
        if member.id == guild.owner_id or member.id in self._named_in_overwrites(guild):
            shared = self._shared(guild, member)
        else:
            shapes = self._shapes.setdefault(guild.id, LRUCache(maxsize=MEMBERS_PER_GUILD))
            shape = tuple(sorted(role.id for role in member.roles))
            known = shapes.get(shape)
            shared = known if known is not None else self._shared(guild, member)
            shapes[shape] = shared
        return shared | private

    @staticmethod
    def _shared(guild: discord.Guild, member: discord.Member) -> frozenset[int]:
        return frozenset(
            channel.id
            for channel in guild_channels(guild)
            if not (isinstance(channel, discord.Thread) and channel.is_private())
            and can_read(channel, member)
        )

    def _named_in_overwrites(self, guild: discord.Guild) -> frozenset[int]:
        named = self._named.get(guild.id)
        if named is None:
            named = frozenset(
                target.id
                for channel in guild.channels
                for target in channel.overwrites
                if not isinstance(target, discord.Role)
            )
            self._named[guild.id] = named
        return named

    def public(self, guild: discord.Guild) -> frozenset[int]:
        """The ids of the channels and threads @everyone can read."""
        found = self._public.get(guild.id)
        if found is None:
            found = frozenset(c.id for c in guild_channels(guild) if is_public(c))
            self._public[guild.id] = found
        return found

    def search_viewer(self, guild: discord.Guild, member: discord.abc.User) -> Viewer:
        """For results only `member` sees (the ephemeral /recall): everything they can read."""
        return Viewer.of_channels(member.id, self.readable(guild, member))

    def reply_viewer(
        self, guild: discord.Guild, member: discord.abc.User, channel: Channel
    ) -> Viewer:
        """For a reply posted in `channel`: words every reader of the channel may read. In a
        public channel, the public channels the member can read; in a restricted one, those
        plus the channel itself (whoever reads the reply reads the channel)."""
        shared = self.readable(guild, member) & self.public(guild)
        if channel.id not in shared and not is_public(channel):
            shared |= {channel.id}
        return Viewer.of_channels(member.id, shared)

    def forget_member(self, guild_id: int, member_id: int) -> None:
        cache = self._members.get(guild_id)
        if cache is not None:
            cache.pop(member_id, None)

    def forget_guild(self, guild_id: int) -> None:
        self._members.pop(guild_id, None)
        self._public.pop(guild_id, None)
        self._shapes.pop(guild_id, None)
        self._named.pop(guild_id, None)
