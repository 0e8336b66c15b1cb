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
    await fake.edit_message(msg_id, "new text")     # MESSAGE_UPDATE (full message, edited)
    await fake.delete_message(msg_id)               # MESSAGE_DELETE
    await fake.update_member("alice", nick="Ally")  # GUILD_MEMBER_UPDATE
    await fake.member_join(FakeMember(...))         # GUILD_MEMBER_ADD
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
    await eventually(lambda: <truthy when done>, timeout=5.0)   # module-level polling helper

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Self

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

_log = logging.getLogger(__name__)

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

_OPTION_TYPES = {bool: 5, int: 4, float: 10, str: 3}


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
class FakeChannel:
    id: int
    name: str
    readable: bool = True
    type: int = 0  # GUILD_TEXT


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


async def eventually(probe: Callable[[], Any], timeout: float = 5.0) -> Any:  # noqa: ASYNC109
    """Poll `probe` until it returns something truthy (returned), else raise TimeoutError.

    Polling is deliberate: the things tests wait for (rows, REST calls) have no event to await.
    """
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = probe()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"condition not met within {timeout}s")
        await asyncio.sleep(0.01)


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses bodies whose content-type is exactly "application/json"
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


class FakeDiscord:
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
        self.synced_commands: dict[int | None, list[dict[str, Any]]] = {}
        self.requests: list[tuple[str, str]] = []
        self.unhandled: list[tuple[str, str]] = []
        self.identify: dict[str, Any] | None = None
        self.history: dict[int, dict[int, dict[str, Any]]] = {c.id: {} for c in self.guild.channels}
        self._sockets: set[web.WebSocketResponse] = set()
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
        for channel in self.guild.channels:
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

    def _guild_payload(self) -> dict[str, Any]:
        guild = self.guild
        channels = []
        for position, channel in enumerate(guild.channels):
            overwrites = []
            if not channel.readable:
                overwrites.append(
                    {"id": str(guild.id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}
                )
            channels.append(
                {
                    "id": str(channel.id),
                    "type": channel.type,
                    "name": channel.name,
                    "position": position,
                    "guild_id": str(guild.id),
                    "permission_overwrites": overwrites,
                    "nsfw": False,
                    "parent_id": None,
                    "topic": None,
                    "rate_limit_per_user": 0,
                    "last_message_id": None,
                }
            )
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "owner_id": str(guild.owner_id),
            "roles": [
                {
                    "id": str(guild.id),
                    "name": "@everyone",
                    "permissions": str(guild.everyone_permissions),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
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
        """Send one DISPATCH to every connected client."""
        if not self._sockets:
            raise RuntimeError(f"no client connected to dispatch {event} to")
        payload = {"op": 0, "t": event, "s": next(self._sequence), "d": data}
        for socket in list(self._sockets):
            await socket.send_str(json.dumps(payload))

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
        return {"type": _OPTION_TYPES[type(value)], "name": name, "value": value}

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
        interaction_id = self.snowflake()
        token = f"token-{interaction_id}"
        self._interactions[token] = interaction_id
        permissions = (
            self.guild.everyone_permissions if member_permissions is None else member_permissions
        )
        member_data = invoker.member_payload()
        member_data["permissions"] = str(permissions)
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
        channel_obj = next(c for c in self.guild.channels if c.id == channel_id)
        interaction = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": 2,
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
        await self.dispatch("INTERACTION_CREATE", interaction)
        return interaction

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
        return socket

    async def _on_gateway_message(self, socket: web.WebSocketResponse, msg: dict) -> None:
        op, data = msg.get("op"), msg.get("d")
        if op == 1:  # heartbeat
            await socket.send_json({"op": 11})
        elif op == 2:  # identify
            self.identify = data
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
        await self._send(
            socket,
            "READY",
            {
                "v": 10,
                "user": self.bot_user.user_payload(),
                "guilds": [{"id": str(self.guild.id), "unavailable": True}],
                "session_id": f"session-{self.snowflake()}",
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        await self._send(socket, "GUILD_CREATE", self._guild_payload())
        self._ready.set()

    # ----------------------------------------------------------------- REST

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        method = request.method
        self.requests.append((method, path))
        parts = path.strip("/").split("/")
        body = await self._body(request)
        try:
            result = await self._route(method, parts, body, request)
        except KeyError as exc:
            return _json({"message": f"Unknown {exc}", "code": 10008}, status=404)
        if result is None:
            return web.Response(status=204)
        if isinstance(result, web.StreamResponse):
            return result
        return _json(result)

    async def _body(self, request: web.Request) -> Any:
        if not request.can_read_body:
            return None
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            body: Any = None
            while (part := await reader.next()) is not None:
                if getattr(part, "name", None) == "payload_json":
                    body = json.loads(await part.text())  # type: ignore[union-attr]
            return body
        text = await request.text()
        return json.loads(text) if text else None

    async def _route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        match (method, *parts):
            case ("GET", "gateway", "bot"):
                return {
                    "url": self.gateway_url.rstrip("/"),
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 1000,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            case ("GET", "gateway"):
                return {"url": self.gateway_url.rstrip("/")}
            case ("GET", "users", "@me"):
                return self.bot_user.user_payload()
            case ("GET", "users", user_id):
                return self.member(int(user_id)).user_payload()
            case ("GET", "oauth2", "applications", "@me"):
                return self._application_payload()
            case ("GET", "applications", "@me"):
                return self._application_payload()
            case ("PUT", "applications", _, "commands"):
                return self._sync_commands(None, body or [])
            case ("PUT", "applications", _, "guilds", guild_id, "commands"):
                return self._sync_commands(int(guild_id), body or [])
            case ("GET", "applications", _, "commands"):
                return self.synced_commands.get(None, [])
            case ("GET", "applications", _, "guilds", guild_id, "commands"):
                return self.synced_commands.get(int(guild_id), [])
            case ("POST", "channels", channel_id, "messages"):
                return await self._bot_sends(int(channel_id), body or {})
            case ("PATCH", "channels", channel_id, "messages", message_id):
                message = self._find_message(int(message_id))
                message.update(
                    {k: v for k, v in (body or {}).items() if k in ("content", "embeds")}
                )
                message["edited_timestamp"] = datetime.now(UTC).isoformat()
                return message
            case ("DELETE", "channels", channel_id, "messages", message_id):
                self.history.get(int(channel_id), {}).pop(int(message_id), None)
                return None
            case ("GET", "channels", channel_id, "messages"):
                return self._history_page(int(channel_id), request.query)
            case ("GET", "channels", channel_id, "messages", message_id):
                return self.history[int(channel_id)][int(message_id)]
            case ("POST", "channels", channel_id, "typing"):
                self.typing.append(int(channel_id))
                return None
            case ("PUT", "channels", channel_id, "messages", message_id, "reactions", emoji, "@me"):
                self.reactions.append((int(channel_id), int(message_id), emoji))
                return None
            case ("GET", "channels", channel_id):
                payload = self._guild_payload()
                return next(c for c in payload["channels"] if c["id"] == channel_id)
            case ("GET", "guilds", guild_id, "members", user_id):
                return self.member(int(user_id)).member_payload()
            case ("GET", "guilds", guild_id, "members"):
                return [m.member_payload() for m in self.guild.members.values()]
            case ("GET", "guilds", guild_id):
                return self._guild_payload()
            case ("POST", "interactions", interaction_id, token, "callback"):
                return self._interaction_callback(int(interaction_id), body or {})
            case ("POST", "webhooks", _, token):
                interaction_id = self._interactions.get(token, 0)
                self.followups.setdefault(interaction_id, []).append(body or {})
                return self._webhook_message(body or {})
            case ("PATCH", "webhooks", _, token, "messages", _):
                interaction_id = self._interactions.get(token, 0)
                self.interaction_edits.setdefault(interaction_id, []).append(body or {})
                return self._webhook_message(body or {})
            case ("GET", "webhooks", _, token, "messages", _):
                interaction_id = self._interactions.get(token, 0)
                response = self.interaction_responses.get(interaction_id, {})
                return self._webhook_message(response.get("data") or {})
            case ("DELETE", "webhooks", _, token, "messages", _):
                return None
        self.unhandled.append((method, "/" + "/".join(parts)))
        _log.warning("fake discord: unhandled %s /%s", method, "/".join(parts))
        if method == "GET":
            return _json({"message": "Unknown route", "code": 0}, status=404)
        return None

    def _application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "",
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": {
                "id": str(self.guild.owner_id),
                "username": "owner",
                "discriminator": "0",
                "avatar": None,
            },
            "verify_key": "0" * 64,
            "flags": 0,
        }

    def _sync_commands(self, guild_id: int | None, commands: list[dict]) -> list[dict]:
        synced = []
        for command in commands:
            stored = dict(command)
            stored.setdefault("type", 1)
            stored["id"] = str(self.snowflake())
            stored["application_id"] = str(self.application_id)
            stored["version"] = "1"
            if guild_id is not None:
                stored["guild_id"] = str(guild_id)
            synced.append(stored)
        self.synced_commands[guild_id] = synced
        return synced

    async def _bot_sends(self, channel_id: int, body: dict[str, Any]) -> dict[str, Any]:
        reference = body.get("message_reference") or {}
        reply_to = int(reference["message_id"]) if reference.get("message_id") else None
        created = datetime.now(UTC)
        message = self._message_payload(
            message_id=self.snowflake(created),
            channel_id=channel_id,
            author=self.bot_user,
            content=body.get("content") or "",
            created_at=created,
            reply_to=reply_to,
            embeds=body.get("embeds") or (),
        )
        message["allowed_mentions"] = body.get("allowed_mentions")
        self.history.setdefault(channel_id, {})[int(message["id"])] = message
        self.sent_messages.append(message)
        # Discord echoes the bot's own messages over the gateway.
        if self._sockets:
            await self.dispatch("MESSAGE_CREATE", message)
        return message

    def _history_page(self, channel_id: int, query: Mapping[str, str]) -> list[dict[str, Any]]:
        """Discord semantics: always newest first; `after` pages upward from an id."""
        limit = min(int(query.get("limit", 50)), 100)
        ids = sorted(self.history.get(channel_id, {}))
        if "after" in query:
            chosen = [i for i in ids if i > int(query["after"])][:limit]
        elif "before" in query:
            chosen = [i for i in ids if i < int(query["before"])][-limit:]
        else:
            chosen = ids[-limit:]
        return [self.history[channel_id][i] for i in reversed(chosen)]

    def _interaction_callback(self, interaction_id: int, body: dict[str, Any]) -> dict[str, Any]:
        self.interaction_responses[interaction_id] = body
        kind = body.get("type")
        data = body.get("data") or {}
        result: dict[str, Any] = {
            "interaction": {
                "id": str(interaction_id),
                "type": 2,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool((data.get("flags") or 0) & 64),
            },
        }
        if kind == 4:
            message = self._webhook_message(data)
            result["interaction"]["response_message_id"] = message["id"]
            result["resource"] = {"type": 4, "message": message}
        return result

    def _webhook_message(self, body: Mapping[str, Any]) -> dict[str, Any]:
        created = datetime.now(UTC)
        return self._message_payload(
            message_id=self.snowflake(created),
            channel_id=self.channel.id,
            author=self.bot_user,
            content=body.get("content") or "",
            created_at=created,
            embeds=body.get("embeds") or (),
        ) | {"webhook_id": str(self.application_id), "flags": body.get("flags") or 0}
