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
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Self

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

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
    OPTION_TYPES,
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
    guild_payload,
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


class FakeDiscord(PermissionEvents, RestRoutes):
    """The fake Discord service. See the module docstring for the API."""

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

    def forget_message(self, message_id: int) -> None:
        """Delete a message from history without telling the bot (deleted while offline)."""
        message = self._find_message(message_id)
        del self.history[int(message["channel_id"])][message_id]

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

    # ----------------------------------------------------------------- payload builders

    def _message_payload(
        self,
        *,
        message_id: int,
        channel_id: int,
        author: FakeMember,
        content: str,
        created_at: datetime,
        reply_to: int | None = None,
        mentions: Iterable[FakeMember] = (),
        attachments: Iterable[FakeAttachment | str] = (),
        embeds: Iterable[Mapping[str, Any]] = (),
        stickers: Iterable[str] = (),
        edited_at: datetime | None = None,
    ) -> dict[str, Any]:
        mention_payloads = []
        for mentioned in mentions:
            payload = mentioned.user_payload()
            payload["member"] = mentioned.member_payload(with_user=False)
            mention_payloads.append(payload)
        attachment_payloads = []
        for attachment in attachments:
            if isinstance(attachment, str):
                attachment = FakeAttachment(attachment)
            attachment_id = self.snowflake()
            url = f"{self.base_url}/attachments/{attachment_id}/{attachment.filename}"
            data: dict[str, Any] = {
                "id": str(attachment_id),
                "filename": attachment.filename,
                "size": attachment.size,
                "url": url,
                "proxy_url": url,
            }
            if attachment.content_type:
                data["content_type"] = attachment.content_type
            attachment_payloads.append(data)
        data = {
            "id": str(message_id),
            "type": 19 if reply_to else 0,
            "channel_id": str(channel_id),
            "guild_id": str(self.guild.id),
            "author": author.user_payload(),
            "member": author.member_payload(with_user=False),
            "content": content,
            "timestamp": created_at.isoformat(),
            "edited_timestamp": edited_at.isoformat() if edited_at else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": mention_payloads,
            "mention_roles": [],
            "attachments": attachment_payloads,
            "embeds": [dict(e) for e in embeds],
            "sticker_items": [
                {"id": str(self.snowflake()), "name": name, "format_type": 1} for name in stickers
            ],
            "pinned": False,
            "flags": 0,
            "components": [],
        }
        if reply_to is not None:
            data["message_reference"] = {
                "type": 0,
                "message_id": str(reply_to),
                "channel_id": str(channel_id),
                "guild_id": str(self.guild.id),
            }
            referenced = self.history.get(channel_id, {}).get(reply_to)
            data["referenced_message"] = referenced
        return data

    def _build_message(
        self,
        content: str,
        *,
        author: str | int | FakeMember = "alice",
        channel: FakeChannel | int | str | None = None,
        reply_to: int | None = None,
        mentions: Iterable[str | int | FakeMember] = (),
        attachments: Iterable[FakeAttachment | str] = (),
        embeds: Iterable[Mapping[str, Any]] = (),
        stickers: Iterable[str] = (),
        created_at: datetime | None = None,
    ) -> dict[str, Any]:
        created = created_at or datetime.now(UTC)
        # snowflakes carry milliseconds; keep the timestamp consistent with the id
        created = created.replace(microsecond=created.microsecond // 1000 * 1000)
        channel_id = self._channel_id(channel)
        message = self._message_payload(
            message_id=self.snowflake(created),
            channel_id=channel_id,
            author=self.member(author),
            content=content,
            created_at=created,
            reply_to=reply_to,
            mentions=[self.member(m) for m in mentions],
            attachments=attachments,
            embeds=embeds,
            stickers=stickers,
        )
        self.history.setdefault(channel_id, {})[int(message["id"])] = message
        return message

    # ----------------------------------------------------------------- events to the bot

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

    def add_history(self, content: str, **options: Any) -> dict[str, Any]:
        """Store a message in channel history without telling the bot (sent while offline)."""
        return self._build_message(content, **options)

    async def send_message(self, content: str, **options: Any) -> dict[str, Any]:
        """A member posts a message: stored in history and dispatched as MESSAGE_CREATE."""
        message = self._build_message(content, **options)
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    def _find_message(self, message_id: int) -> dict[str, Any]:
        for messages in self.history.values():
            if message_id in messages:
                return messages[message_id]
        raise KeyError(message_id)

    async def edit_message(self, message_id: int, content: str) -> dict[str, Any]:
        message = self._find_message(message_id)
        message["content"] = content
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        await self.dispatch("MESSAGE_UPDATE", message)
        return message

    async def delete_message(self, message_id: int) -> dict[str, Any]:
        message = self._find_message(message_id)
        del self.history[int(message["channel_id"])][message_id]
        data = {
            "id": str(message_id),
            "channel_id": message["channel_id"],
            "guild_id": str(self.guild.id),
        }
        await self.dispatch("MESSAGE_DELETE", data)
        return data

    async def update_member(self, who: str | int | FakeMember, **changes: Any) -> dict[str, Any]:
        """Change a member (nick=, global_name=, username=) and send GUILD_MEMBER_UPDATE."""
        member = self.member(who)
        for name, value in changes.items():
            setattr(member, name, value)
        data = member.member_payload()
        data["guild_id"] = str(self.guild.id)
        await self.dispatch("GUILD_MEMBER_UPDATE", data)
        return data

    async def member_join(self, member: FakeMember) -> dict[str, Any]:
        self.add_member(member)
        data = member.member_payload()
        data["guild_id"] = str(self.guild.id)
        await self.dispatch("GUILD_MEMBER_ADD", data)
        return data

    # ----------------------------------------------------------------- slash commands

    def _command_for(self, name: str) -> tuple[dict[str, Any] | None, int | None]:
        for scope in (self.guild.id, None):
            for command in self.synced_commands.get(scope, []):
                if command.get("name") == name and command.get("type", 1) == 1:
                    return command, scope
        return None, None

    def _option(self, name: str, value: Any, resolved: dict[str, dict[str, Any]]) -> dict[str, Any]:
        if isinstance(value, FakeMember) or (
            isinstance(value, str) and any(m.username == value for m in self.guild.members.values())
        ):
            member = self.member(value)
            resolved.setdefault("users", {})[str(member.id)] = member.user_payload()
            member_data = member.member_payload(with_user=False)
            member_data["permissions"] = str(self.guild.everyone_permissions)
            resolved.setdefault("members", {})[str(member.id)] = member_data
            return {"type": 6, "name": name, "value": str(member.id)}
        return {"type": OPTION_TYPES[type(value)], "name": name, "value": value}

    async def invoke_slash(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        user: str | int | FakeMember = "alice",
        channel: FakeChannel | int | str | None = None,
        member_permissions: int | None = None,
    ) -> dict[str, Any]:
        """Dispatch INTERACTION_CREATE for `/name options` as `user`; returns the interaction."""
        root, *subs = name.split()
        resolved: dict[str, dict[str, Any]] = {}
        leaf = [self._option(key, value, resolved) for key, value in (options or {}).items()]
        for sub in reversed(subs):
            leaf = [{"type": 1 if sub == subs[-1] else 2, "name": sub, "options": leaf}]
        command, scope = self._command_for(root)
        invoker = self.member(user)
        channel_id = self._channel_id(channel)
        data: dict[str, Any] = {
            "id": str(command["id"]) if command else str(self.snowflake()),
            "name": root,
            "type": 1,
            "options": leaf,
        }
        if resolved:
            data["resolved"] = resolved
        if scope is not None:
            data["guild_id"] = str(scope)
        interaction = self._interaction(2, data, invoker, channel_id, member_permissions)
        self.interaction_payloads[int(interaction["id"])] = interaction
        await self.dispatch("INTERACTION_CREATE", interaction)
        return interaction

    def _interaction(
        self,
        kind: int,
        data: dict[str, Any],
        invoker: FakeMember,
        channel_id: int,
        member_permissions: int | None,
    ) -> dict[str, Any]:
        """An INTERACTION_CREATE payload (2: a slash command, 3: a component) with a new id
        and token that the REST callbacks of this fake answer to."""
        interaction_id = self.snowflake()
        token = f"token-{interaction_id}"
        self._interactions[token] = interaction_id
        permissions = (
            self.guild.everyone_permissions if member_permissions is None else member_permissions
        )
        member_data = invoker.member_payload()
        member_data["permissions"] = str(permissions)
        channel_obj = next(c for c in self.guild.channels if c.id == channel_id)
        return {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(self.guild.id),
            "channel_id": str(channel_id),
            "channel": {
                "id": str(channel_id),
                "type": channel_obj.type,
                "name": channel_obj.name,
                "guild_id": str(self.guild.id),
                "permissions": str(ALL_PERMISSIONS),
            },
            "member": member_data,
            "token": token,
            "version": 1,
            "locale": "en-US",
            "guild_locale": "en-US",
            "app_permissions": str(ALL_PERMISSIONS),
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(self.guild.id)},
            "context": 0,
        }

    async def click_button(
        self, interaction_id: int | str, label: str, *, user: str | int | FakeMember = "alice"
    ) -> dict[str, Any]:
        """Press the button labelled `label` on the message the bot answered the interaction
        with (INTERACTION_CREATE type 3, as Discord sends it); returns the click's interaction."""
        key = int(interaction_id)
        message = self.response_messages[key]
        buttons = [
            button
            for row in message.get("components") or []
            for button in row.get("components") or []
        ]
        button = next((b for b in buttons if b.get("label") == label), None)
        if button is None:
            raise KeyError(f"no button {label!r}; there are {[b.get('label') for b in buttons]}")
        data = {"custom_id": button["custom_id"], "component_type": button["type"]}
        original = self.interaction_payloads[key]
        click = self._interaction(3, data, self.member(user), int(original["channel_id"]), None) | {
            "message": message
        }
        await self.dispatch("INTERACTION_CREATE", click)
        return click

    async def wait_for_interaction_response(
        self,
        interaction_id: int | str,
        timeout: float = 5.0,  # noqa: ASYNC109 - a test helper's deadline
    ) -> dict[str, Any]:
        key = int(interaction_id)
        return await self._wait(lambda: self.interaction_responses.get(key), timeout, "response")

    def interaction_text(self, interaction_id: int | str) -> str:
        """Everything the bot said for one interaction: response, edits, follow-ups."""
        key = int(interaction_id)
        parts: list[str] = []
        response = self.interaction_responses.get(key, {})
        parts.append((response.get("data") or {}).get("content") or "")
        parts += [edit.get("content") or "" for edit in self.interaction_edits.get(key, [])]
        parts += [follow.get("content") or "" for follow in self.followups.get(key, [])]
        for payload in [
            response.get("data") or {},
            *self.interaction_edits.get(key, []),
            *self.followups.get(key, []),
        ]:
            for embed in payload.get("embeds") or []:
                parts.append(embed.get("title") or "")
                parts.append(embed.get("description") or "")
                parts += [f"{f.get('name')}: {f.get('value')}" for f in embed.get("fields", [])]
        return "\n".join(part for part in parts if part)

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

    async def _wait(self, probe: Callable[[], Any], seconds: float, what: str) -> Any:
        try:
            return await eventually(probe, seconds)
        except TimeoutError:
            raise TimeoutError(
                f"no {what} within {seconds}s; sent: {self.sent_messages!r}"
            ) from None

    # ----------------------------------------------------------------- gateway

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

    async def _on_gateway_message(self, socket: web.WebSocketResponse, msg: dict) -> None:
        op, data = msg.get("op"), msg.get("d")
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
