"""The gateway half of the fake Discord: the websocket discord.py connects to (HELLO,
IDENTIFY -> READY + GUILD_CREATE, heartbeats, member chunks) and the DISPATCH of events to
the connected clients, by shard (see tests/e2e/fake_discord.py for the API)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aiohttp import WSMsgType, web

from tests.e2e.fake_discord_host import DiscordHost
from tests.e2e.fake_discord_models import guild_payload


class GatewayEvents(DiscordHost):
    """Mixin of `FakeDiscord`: the gateway websocket and the events sent over it."""

    async def dispatch(self, event: str, data: Mapping[str, Any]) -> None:
        """Send one DISPATCH to every connected client whose shard holds the guild (as
        Discord does: a guild's events arrive on its shard only)."""
        owners = [socket for socket in self._sockets if self._owns(socket)]
        if not owners:
            raise RuntimeError(f"no client connected to dispatch {event} to")
        payload = {"op": 0, "t": event, "s": next(self._sequence), "d": data}
        for socket in owners:
            await socket.send_str(json.dumps(payload))

    def _owns(self, socket: web.WebSocketResponse) -> bool:
        shard_id, count = self._shard_of.get(socket, (0, 1))
        return (self.guild.id >> 22) % count == shard_id

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await socket.prepare(request)
        await socket.send_json({"op": 10, "d": {"heartbeat_interval": 41250}})
        try:
            async for frame in socket:
                if frame.type != WSMsgType.TEXT:
                    continue
                await self._on_gateway_message(socket, json.loads(frame.data))
        finally:
            self._sockets.discard(socket)
            self._shard_of.pop(socket, None)
        return socket

    async def _on_gateway_message(self, socket: web.WebSocketResponse, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        data: Any = msg.get("d")  # the client's JSON: its shape depends on the op
        if op == 1:  # heartbeat
            await socket.send_json({"op": 11})
        elif op == 2:  # identify
            self.identify = data
            self.identifies.append(data)
            shard = data.get("shard") or [0, 1]
            self._shard_of[socket] = (int(shard[0]), int(shard[1]))
            self._sockets.add(socket)
            await self._send_ready(socket)
        elif op == 6:  # resume: not supported, ask for a fresh identify
            await socket.send_json({"op": 9, "d": False})
        elif op == 8:  # request guild members
            guild_id = int(data["guild_id"])
            if guild_id == self.guild.id:
                await self._send(
                    socket,
                    "GUILD_MEMBERS_CHUNK",
                    {
                        "guild_id": str(guild_id),
                        "members": [m.member_payload() for m in self.guild.members.values()],
                        "chunk_index": 0,
                        "chunk_count": 1,
                        "nonce": data.get("nonce"),
                    },
                )

    async def _send(self, socket: web.WebSocketResponse, event: str, data: Any) -> None:
        await socket.send_json({"op": 0, "t": event, "s": next(self._sequence), "d": data})

    async def _send_ready(self, socket: web.WebSocketResponse) -> None:
        owned = self._owns(socket)
        guilds = [{"id": str(self.guild.id), "unavailable": True}] if owned else []
        await self._send(
            socket,
            "READY",
            {
                "v": 10,
                "user": self.bot_user.user_payload(),
                "guilds": guilds,
                "shard": list(self._shard_of.get(socket, (0, 1))),
                "session_id": f"session-{self.snowflake()}",
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        if owned:
            await self._send(socket, "GUILD_CREATE", guild_payload(self.guild))
            self._ready.set()
