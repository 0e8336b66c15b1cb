"""The gateway half of the fake Discord: the websocket discord.py connects to (HELLO,
IDENTIFY -> READY + GUILD_CREATE, heartbeats, member chunks) and the DISPATCH of events to
the connected clients, by shard (see tests/e2e/fake_discord.py for the API)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import WSMsgType, web

from tests.e2e.fake_discord_host import DiscordState
from tests.e2e.fake_discord_models import guild_payload

# What answers an IDENTIFY (READY and the guilds): by default the gateway's own `send_ready`;
# a fake serving other guilds (bench/fleet_gateway.py) hands `FakeDiscord` its own instead.
Greeting = Callable[[web.WebSocketResponse], Awaitable[None]]


class Gateway:
    """The gateway websocket and the events sent over it, held by `FakeDiscord` as `gateway`;
    `greet` (default `send_ready`) sends READY and the guilds to a client that identified."""

    def __init__(self, state: DiscordState, *, greet: Greeting | None = None) -> None:
        self.state = state
        self.greet = greet or self.send_ready
        self.sockets: set[web.WebSocketResponse] = set()
        # (shard id, shard count) each identified connection asked for, for a `greet` or a
        # sender of its own to pick what each connection gets (read it, never change it).
        self.shard_of: dict[web.WebSocketResponse, tuple[int, int]] = {}
        self.sequence = itertools.count(1)
        self.identify: dict[str, Any] | None = None  # the latest IDENTIFY payload
        self.identifies: list[dict[str, Any]] = []
        self.ready = asyncio.Event()

    @property
    def connected(self) -> bool:
        """Has a client identified (and not gone since)?"""
        return bool(self.sockets)

    async def dispatch(self, event: str, data: Mapping[str, Any]) -> None:
        """Send one DISPATCH to every connected client whose shard holds the guild (as
        Discord does: a guild's events arrive on its shard only)."""
        owners = [socket for socket in self.sockets if self.owns(socket)]
        if not owners:
            raise RuntimeError(f"no client connected to dispatch {event} to")
        payload = {"op": 0, "t": event, "s": next(self.sequence), "d": data}
        for socket in owners:
            await socket.send_str(json.dumps(payload))

    def owns(self, socket: web.WebSocketResponse) -> bool:
        shard_id, count = self.shard_of.get(socket, (0, 1))
        return (self.state.guild.id >> 22) % count == shard_id

    async def close(self) -> None:
        """Close every client's websocket (the server is stopping)."""
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.close()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The aiohttp handler of /gateway/: one client's connection, until it closes."""
        socket = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await socket.prepare(request)
        await socket.send_json({"op": 10, "d": {"heartbeat_interval": 41250}})
        try:
            async for frame in socket:
                if frame.type != WSMsgType.TEXT:
                    continue
                await self._on_message(socket, json.loads(frame.data))
        finally:
            self.sockets.discard(socket)
            self.shard_of.pop(socket, None)
        return socket

    async def _on_message(self, socket: web.WebSocketResponse, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        data: Any = msg.get("d")  # the client's JSON: its shape depends on the op
        if op == 1:  # heartbeat
            await socket.send_json({"op": 11})
        elif op == 2:  # identify
            self.identify = data
            self.identifies.append(data)
            shard = data.get("shard") or [0, 1]
            self.shard_of[socket] = (int(shard[0]), int(shard[1]))
            self.sockets.add(socket)
            await self.greet(socket)
        elif op == 6:  # resume: not supported, ask for a fresh identify
            await socket.send_json({"op": 9, "d": False})
        elif op == 8:  # request guild members
            await self._send_members(socket, data)

    async def _send_members(self, socket: web.WebSocketResponse, data: Any) -> None:
        """Answer a member request for the guild with all its members in one chunk."""
        guild = self.state.guild
        guild_id = int(data["guild_id"])
        if guild_id == guild.id:
            await self.send(
                socket,
                "GUILD_MEMBERS_CHUNK",
                {
                    "guild_id": str(guild_id),
                    "members": [m.member_payload() for m in guild.members.values()],
                    "chunk_index": 0,
                    "chunk_count": 1,
                    "nonce": data.get("nonce"),
                },
            )

    async def send(self, socket: web.WebSocketResponse, event: str, data: Any) -> None:
        """One DISPATCH to one connection, numbered in the gateway's one sequence (for a
        `greet` or a sender of events to a shard of its choosing)."""
        await socket.send_json({"op": 0, "t": event, "s": next(self.sequence), "d": data})

    async def send_ready(self, socket: web.WebSocketResponse) -> None:
        """READY, and GUILD_CREATE if the client's shard holds the guild (then it is ready)."""
        state = self.state
        owned = self.owns(socket)
        guilds = [{"id": str(state.guild.id), "unavailable": True}] if owned else []
        await self.send(
            socket,
            "READY",
            {
                "v": 10,
                "user": state.bot_user.user_payload(),
                "guilds": guilds,
                "shard": list(self.shard_of.get(socket, (0, 1))),
                "session_id": f"session-{state.snowflake()}",
                "resume_gateway_url": state.gateway_url,
                "application": {"id": str(state.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        if owned:
            await self.send(socket, "GUILD_CREATE", guild_payload(state.guild))
            self.ready.set()
