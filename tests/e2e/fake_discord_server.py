"""Where the fake Discord listens: an aiohttp server on 127.0.0.1 (the gateway websocket and
the REST routes) and the base-URL hooks that point discord.py at it (see
tests/e2e/fake_discord.py for the API)."""

from __future__ import annotations

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from tests.e2e.fake_discord_gateway import Gateway
from tests.e2e.fake_discord_host import DiscordState
from tests.e2e.fake_discord_rest import RestRoutes


class Server:
    """The server of the gateway and REST parts, held by `FakeDiscord` as `server`; the port
    it listens on goes into the shared state, where every URL is made from it."""

    def __init__(self, state: DiscordState, gateway: Gateway, rest: RestRoutes) -> None:
        self.state = state
        self.gateway = gateway
        self.rest = rest
        self._runner: web.AppRunner | None = None
        self._saved_hooks: tuple[str, yarl.URL] | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway/", self.gateway.handle)
        app.router.add_route("*", "/api/v10/{path:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.state.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def install(self) -> None:
        """Point discord.py at this server (class-level base URLs; undone by `uninstall`)."""
        self._saved_hooks = (
            discord.http.Route.BASE,
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        )
        discord.http.Route.BASE = self.state.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.state.gateway_url)

    def uninstall(self) -> None:
        if self._saved_hooks is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
                self._saved_hooks
            )
            self._saved_hooks = None

    async def stop(self) -> None:
        """Close the clients' websockets, then the server."""
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
