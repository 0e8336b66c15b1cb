"""A fake Discord (gateway websocket + REST) on 127.0.0.1 that the real discord.py client talks to.

Why: end-to-end tests drive the real bot through real discord.py parsing, without a network or
a token. discord.py is pointed here only through its base-URL hooks (`discord.http.Route.BASE`
and `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`; `/gateway/bot` and READY's
`resume_gateway_url` also point here), never by patching memorybot code.

API (see tests/e2e/conftest.py for the `fake_discord` and `start_bot` fixtures):

    fake = FakeDiscord()                      # one guild, channels general/random/secret,
    await fake.start(); fake.install()        # members alice, bob, otherbot (a bot), the bot
    ...; fake.uninstall(); await fake.stop()  # (or: async with FakeDiscord() as fake: ...)

    fake.guild / fake.channel ("general") / fake.channel_named("random") / fake.member("alice")
    fake.bot_user                             # FakeMember of the bot itself
    ids: GUILD_ID, GENERAL_ID/RANDOM_ID/SECRET_ID, ALICE_ID/BOB_ID/OTHERBOT_ID (18-digit ids)
    fake.add_member(FakeMember(...))          # before start, or then `await fake.member_join(m)`
    await fake.wait_connected()               # a client identified and got READY + GUILD_CREATE
    fake.snowflake(at=None)                   # a fresh id for a datetime (ms precision)

    Events pushed to the bot (each returns the payload dispatched):
    msg = await fake.send_message("hi", author="alice", channel=None, reply_to=None,
                                  mentions=(), attachments=(), embeds=(), stickers=(),
                                  created_at=None)    # MESSAGE_CREATE; attachments are
                                                      # FakeAttachment or file names
    fake.add_history(...)                     # same arguments; stored for channel history only
                                              # (messages sent while the bot was offline)
    fake.forget_message(msg_id)               # gone from history, no event (deleted offline)
    fake.history_forbidden.add(channel_id)    # reading that history answers 403
    thread = fake.add_thread("plans", parent="general")  # an active thread (REST only);
                                              # add_history(..., channel=thread) fills it
    await fake.edit_message(msg_id, "new text")     # MESSAGE_UPDATE (full message, edited)
    await fake.delete_message(msg_id)               # MESSAGE_DELETE
    await fake.update_member("alice", nick="Ally")  # GUILD_MEMBER_UPDATE
    await fake.member_join(FakeMember(...))         # GUILD_MEMBER_ADD
    await fake.update_member("bob", roles=[role.id])  # a member's roles change

    Permissions (roles, overwrites; discord.py resolves them as on Discord):
    mods = fake.add_role("mods", permissions=0)      # before start, or `await fake.create_role`
    fake.add_channel("mods", readable=False, overwrites=[Overwrite(mods.id, allow=VIEW_CHANNEL)])
    await fake.update_channel("random", readable=False)   # CHANNEL_UPDATE with new overwrites
    await fake.create_channel("staff", readable=False)    # CHANNEL_CREATE
    await fake.update_role(mods, permissions=...)         # GUILD_ROLE_UPDATE
    thread = await fake.create_thread("plans", parent="general", private=False)  # THREAD_CREATE
    await fake.dispatch("EVENT_NAME", data)         # anything else

    Slash commands (INTERACTION_CREATE type 2):
    ia = await fake.invoke_slash("memory stats", {"user": "bob", "text": "x"},
                                 user="alice", member_permissions=0x20)
    # a space in the name means a subcommand (group); option values: str/int/float/bool,
    # or a member name / FakeMember for user options (resolved data is filled in).
    resp = await fake.wait_for_interaction_response(ia["id"])  # the callback body
    fake.interaction_text(ia["id"])           # content of the response/edits/follow-ups

    What the bot did (REST calls recorded, newest last):
    fake.sent_messages      # list[dict] of message payloads the bot POSTed (with "channel_id")
    await fake.wait_for_sent(lambda m: "hi" in m["content"], timeout=5.0) -> dict
    fake.typing             # channel ids the bot triggered typing in
    fake.interaction_responses / fake.interaction_edits / fake.followups  # by interaction id
    fake.reactions          # (channel id, message id, emoji) the bot added
    fake.synced_commands    # {None or guild_id: [command payloads]} from PUT .../commands
    fake.requests           # every REST call as (method, path)
    fake.unhandled          # REST calls no route matched (answered with a sane default)
    fake.identify           # the IDENTIFY payload (intents, token)
    await eventually(lambda: <truthy when done>, timeout=5.0)   # tests.support polling helper

Messages the bot sends are echoed back over the gateway as MESSAGE_CREATE, as Discord does,
so a test can check that the bot ignores its own messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Self, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from tests.e2e.fake_discord_gateway import GatewayEvents
from tests.e2e.fake_discord_interactions import SlashCommands
from tests.e2e.fake_discord_messages import MessageEvents
from tests.e2e.fake_discord_models import (
    ALICE_ID,
    ALL_PERMISSIONS,
    APPLICATION_ID,
    BOB_ID,
    DEFAULT_PERMISSIONS,
    DISCORD_EPOCH_MS,
    GENERAL_ID,
    GUILD_ID,
    MANAGE_GUILD,
    OTHERBOT_ID,
    OWNER_ID,
    RANDOM_ID,
    SECRET_ID,
    VIEW_CHANNEL,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    Overwrite,
)
from tests.e2e.fake_discord_permissions import PermissionEvents
from tests.e2e.fake_discord_rest import RestRoutes
from tests.support import eventually

# Re-exported: tests import everything from this module.
__all__ = [
    "ALICE_ID",
    "ALL_PERMISSIONS",
    "APPLICATION_ID",
    "BOB_ID",
    "DEFAULT_PERMISSIONS",
    "GENERAL_ID",
    "GUILD_ID",
    "MANAGE_GUILD",
    "OTHERBOT_ID",
    "OWNER_ID",
    "RANDOM_ID",
    "SECRET_ID",
    "VIEW_CHANNEL",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeRole",
    "Overwrite",
    "eventually",
]

_log = logging.getLogger(__name__)
T = TypeVar("T")


class FakeDiscord(GatewayEvents, MessageEvents, SlashCommands, PermissionEvents, RestRoutes):
    """The fake Discord service: its state, lifecycle and lookups here; the gateway,
    messages, slash commands, permissions and REST routes in the mixins (fake_discord_*.py).
    See the module docstring for the API."""

    def __init__(self, *, guild_id: int = GUILD_ID, application_id: int = APPLICATION_ID) -> None:
        self.application_id = application_id
        self.bot_user = FakeMember(application_id, "memorybot", "MemoryBot", bot=True)
        self.guild = FakeGuild(
            id=guild_id,
            name="Test Guild",
            owner_id=OWNER_ID,
            channels=[
                FakeChannel(GENERAL_ID, "general"),
                FakeChannel(RANDOM_ID, "random"),
                FakeChannel(SECRET_ID, "secret", readable=False),
            ],
        )
        for member in (
            FakeMember(ALICE_ID, "alice", "Alice"),
            FakeMember(BOB_ID, "bob", "Bob", nick="Bobby"),
            FakeMember(OTHERBOT_ID, "otherbot", "Other Bot", bot=True),
            self.bot_user,
        ):
            self.guild.members[member.id] = member
        self.sent_messages: list[dict[str, Any]] = []
        self.typing: list[int] = []
        self.reactions: list[tuple[int, int, str]] = []
        self.interaction_responses: dict[int, dict[str, Any]] = {}
        self.interaction_edits: dict[int, list[dict[str, Any]]] = {}
        self.followups: dict[int, list[dict[str, Any]]] = {}
        self.interaction_payloads: dict[int, dict[str, Any]] = {}  # slash commands sent
        self.response_messages: dict[int, dict[str, Any]] = {}  # message answering each
        self.synced_commands: dict[int | None, list[dict[str, Any]]] = {}
        self.sync_calls: list[int | None] = []  # scope of every command sync, in order
        self.requests: list[tuple[str, str]] = []
        self.unhandled: list[tuple[str, str]] = []
        self.identify: dict[str, Any] | None = None
        self.history: dict[int, dict[int, dict[str, Any]]] = {c.id: {} for c in self.guild.channels}
        self.threads: list[FakeChannel] = []  # active threads, listed by REST only
        self.history_forbidden: set[int] = set()  # channel ids whose history answers 403
        self._sockets: set[web.WebSocketResponse] = set()
        # (shard id, shard count) each identified connection asked for.
        self._shard_of: dict[web.WebSocketResponse, tuple[int, int]] = {}
        self.identifies: list[dict[str, Any]] = []
        self._sequence = itertools.count(1)
        self._increment = itertools.count(1)
        self._interactions: dict[str, int] = {}  # token -> interaction id
        self._runner: web.AppRunner | None = None
        self._saved_hooks: tuple[str, yarl.URL] | None = None
        self._ready = asyncio.Event()
        self.port = 0

    # ----------------------------------------------------------------- lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def install(self) -> None:
        """Point discord.py at this server (class-level base URLs; undone by `uninstall`)."""
        self._saved_hooks = (
            discord.http.Route.BASE,
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        )
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

    def uninstall(self) -> None:
        if self._saved_hooks is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
                self._saved_hooks
            )
            self._saved_hooks = None

    async def stop(self) -> None:
        for socket in list(self._sockets):
            with contextlib.suppress(Exception):
                await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        self.install()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.uninstall()
        await self.stop()

    async def wait_connected(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until a client identified and received READY + GUILD_CREATE."""
        await asyncio.wait_for(self._ready.wait(), timeout)

    # ----------------------------------------------------------------- lookups

    @property
    def channel(self) -> FakeChannel:
        return self.guild.channels[0]

    def channel_named(self, name: str) -> FakeChannel:
        for channel in [*self.guild.channels, *self.threads]:
            if channel.name == name:
                return channel
        raise KeyError(name)

    def member(self, who: str | int | FakeMember) -> FakeMember:
        if isinstance(who, FakeMember):
            return who
        for member in self.guild.members.values():
            if who in (member.id, member.username):
                return member
        raise KeyError(who)

    def add_member(self, member: FakeMember) -> FakeMember:
        self.guild.members[member.id] = member
        return member

    def add_thread(self, name: str, *, parent: str = "general") -> FakeChannel:
        """An active public thread in `parent` (Discord lists it; no gateway event)."""
        thread = FakeChannel(
            self.snowflake(), name, type=11, parent_id=self.channel_named(parent).id
        )
        self.threads.append(thread)
        self.history[thread.id] = {}
        return thread

    def _channel_id(self, channel: FakeChannel | int | str | None) -> int:
        if channel is None:
            return self.channel.id
        if isinstance(channel, FakeChannel):
            return channel.id
        if isinstance(channel, str):
            return self.channel_named(channel).id
        return channel

    def snowflake(self, at: datetime | None = None) -> int:
        """A fresh, increasing snowflake for `at` (default now)."""
        ms = int((at.timestamp() if at else time.time()) * 1000)
        return ((ms - DISCORD_EPOCH_MS) << 22) | (next(self._increment) & 0xFFF)

    # ----------------------------------------------------------------- waiting helpers

    async def wait_for_sent(
        self,
        predicate: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = 5.0,  # noqa: ASYNC109 - a test helper's deadline
        start: int = 0,
    ) -> dict[str, Any]:
        """The first message the bot sent (from index `start`) matching `predicate`."""

        def find() -> dict[str, Any] | None:
            for message in self.sent_messages[start:]:
                if predicate is None or predicate(message):
                    return message
            return None

        return await self._wait(find, timeout, "sent message")

    async def _wait(self, probe: Callable[[], T | None], seconds: float, what: str) -> T:
        try:
            found: T = await eventually(probe, seconds)
            return found
        except TimeoutError:
            raise TimeoutError(
                f"no {what} within {seconds}s; sent: {self.sent_messages!r}"
            ) from None
