"""Roles, channel overwrites and threads of the fake Discord, and the gateway events that
change them (see tests/e2e/fake_discord.py for the API): discord.py resolves the permissions
from these exactly as it does on Discord."""

from __future__ import annotations

from collections.abc import Iterable

from tests.e2e.fake_discord_host import DiscordState, Dispatcher
from tests.e2e.fake_discord_models import (
    FakeChannel,
    FakeRole,
    Overwrite,
    channel_payload,
    everyone_role,
    thread_payload,
)


class Permissions:
    """Who may view what, and the events that change it, held by `FakeDiscord` as
    `permissions`; the events go out through the gateway it is given."""

    def __init__(self, state: DiscordState, gateway: Dispatcher) -> None:
        self.state = state
        self.gateway = gateway

    def add_role(self, name: str, *, permissions: int = 0) -> FakeRole:
        """A role of the guild (before start; `create_role` once running)."""
        role = FakeRole(
            self.state.snowflake(), name, permissions, position=len(self.state.guild.roles) + 1
        )
        self.state.guild.roles.append(role)
        return role

    async def create_role(self, name: str, *, permissions: int = 0) -> FakeRole:
        role = self.add_role(name, permissions=permissions)
        await self.gateway.dispatch(
            "GUILD_ROLE_CREATE", {"guild_id": str(self.state.guild.id), "role": role.payload()}
        )
        return role

    async def update_role(self, role: FakeRole | None, *, permissions: int) -> None:
        """Change a role's permissions (None: the @everyone role) and send GUILD_ROLE_UPDATE."""
        if role is None:
            self.state.guild.everyone_permissions = permissions
            role = everyone_role(self.state.guild)
        else:
            role.permissions = permissions
        await self.gateway.dispatch(
            "GUILD_ROLE_UPDATE", {"guild_id": str(self.state.guild.id), "role": role.payload()}
        )

    def add_channel(
        self, name: str, *, readable: bool = True, overwrites: Iterable[Overwrite] = ()
    ) -> FakeChannel:
        """A text channel (before start; `create_channel` once running)."""
        channel = FakeChannel(self.state.snowflake(), name, readable, overwrites=list(overwrites))
        self.state.guild.channels.append(channel)
        self.state.history[channel.id] = {}
        return channel

    async def create_channel(
        self, name: str, *, readable: bool = True, overwrites: Iterable[Overwrite] = ()
    ) -> FakeChannel:
        channel = self.add_channel(name, readable=readable, overwrites=overwrites)
        position = len(self.state.guild.channels) - 1
        await self.gateway.dispatch(
            "CHANNEL_CREATE", channel_payload(channel, self.state.guild.id, position)
        )
        return channel

    async def update_channel(
        self,
        name: str,
        *,
        readable: bool | None = None,
        overwrites: Iterable[Overwrite] | None = None,
    ) -> FakeChannel:
        """Change who may view a channel and send CHANNEL_UPDATE."""
        channel = self.state.channel_named(name)
        if readable is not None:
            channel.readable = readable
        if overwrites is not None:
            channel.overwrites = list(overwrites)
        position = self.state.guild.channels.index(channel)
        await self.gateway.dispatch(
            "CHANNEL_UPDATE", channel_payload(channel, self.state.guild.id, position)
        )
        return channel

    async def create_thread(
        self, name: str, *, parent: str = "general", private: bool = False
    ) -> FakeChannel:
        """A new thread in `parent` (private: type 12), sent as THREAD_CREATE."""
        thread = self.state.add_thread(name, parent=parent)
        if private:
            thread.type = 12
        data = thread_payload(thread, self.state.guild.id) | {"newly_created": True}
        await self.gateway.dispatch("THREAD_CREATE", data)
        return thread
