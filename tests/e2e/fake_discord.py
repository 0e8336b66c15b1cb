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

    What a fake built on this one (bench/) hands it instead of subclassing it:
    FakeDiscord(greet=send)                   # `await send(socket)` answers an IDENTIFY
                                              # (default `fake.gateway.send_ready`); it may
                                              # use fake.gateway.send / fake.gateway.shard_of
    FakeDiscord(on_bot_sends=seen)            # `seen(channel_id, body)` for each message the
                                              # bot POSTs, before it is stored and echoed
    fake.messages.build("hi", author=..., channel=...)  # stored in history, no event

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
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Self

from tests.e2e.fake_discord_gateway import Gateway, Greeting
from tests.e2e.fake_discord_host import BotRecord, DiscordState
from tests.e2e.fake_discord_interactions import SlashCommands
from tests.e2e.fake_discord_messages import Messages, SentObserver

# Re-exported (`X as X`, and `eventually` below): tests import everything from this module.
from tests.e2e.fake_discord_models import ALICE_ID as ALICE_ID
from tests.e2e.fake_discord_models import ALL_PERMISSIONS as ALL_PERMISSIONS
from tests.e2e.fake_discord_models import APPLICATION_ID as APPLICATION_ID
from tests.e2e.fake_discord_models import BOB_ID as BOB_ID
from tests.e2e.fake_discord_models import DEFAULT_PERMISSIONS as DEFAULT_PERMISSIONS
from tests.e2e.fake_discord_models import GENERAL_ID as GENERAL_ID
from tests.e2e.fake_discord_models import GUILD_ID as GUILD_ID
from tests.e2e.fake_discord_models import MANAGE_GUILD as MANAGE_GUILD
from tests.e2e.fake_discord_models import OTHERBOT_ID as OTHERBOT_ID
from tests.e2e.fake_discord_models import OWNER_ID as OWNER_ID
from tests.e2e.fake_discord_models import RANDOM_ID as RANDOM_ID
from tests.e2e.fake_discord_models import SECRET_ID as SECRET_ID
from tests.e2e.fake_discord_models import VIEW_CHANNEL as VIEW_CHANNEL
from tests.e2e.fake_discord_models import FakeAttachment as FakeAttachment
from tests.e2e.fake_discord_models import FakeChannel as FakeChannel
from tests.e2e.fake_discord_models import FakeGuild as FakeGuild
from tests.e2e.fake_discord_models import FakeMember as FakeMember
from tests.e2e.fake_discord_models import FakeRole as FakeRole
from tests.e2e.fake_discord_models import Overwrite as Overwrite
from tests.e2e.fake_discord_payloads import MessagePayloads
from tests.e2e.fake_discord_permissions import Permissions
from tests.e2e.fake_discord_rest import RestRoutes
from tests.e2e.fake_discord_server import Server
from tests.support import eventually as eventually


class FakeDiscord:
    """The fake Discord service: its lifecycle here, made of parts it holds (the gateway,
    messages, slash commands, permissions and REST routes, fake_discord_*.py), which share
    one `DiscordState` and one `BotRecord`. A fake built on it holds it and changes what it
    does through `greet` and `on_bot_sends`, never by subclassing it. See the module docstring
    for the API."""

    def __init__(
        self,
        *,
        guild_id: int = GUILD_ID,
        application_id: int = APPLICATION_ID,
        greet: Greeting | None = None,
        on_bot_sends: SentObserver | None = None,
    ) -> None:
        self.state = state = DiscordState(guild_id=guild_id, application_id=application_id)
        self.record = record = BotRecord()
        self.gateway = Gateway(state, greet=greet)
        self.payloads = MessagePayloads(state)
        self.messages = Messages(
            state, record, self.payloads, self.gateway, on_bot_sends=on_bot_sends
        )
        self.slash = SlashCommands(state, record, self.gateway)
        self.permissions = Permissions(state, self.gateway)
        self.rest = RestRoutes(state, record, self.payloads, bot_sends=self.messages.bot_sends)
        self.server = Server(state, self.gateway, self.rest)
        # What tests read, by the names they read it: the state's and the record's own
        # objects (each is changed in place, never replaced).
        self.application_id, self.bot_user, self.guild = application_id, state.bot_user, state.guild
        self.history, self.threads = state.history, state.threads
        self.history_forbidden = state.history_forbidden
        self.sent_messages, self.typing = record.sent_messages, record.typing
        self.reactions, self.followups = record.reactions, record.followups
        self.interaction_responses = record.interaction_responses
        self.interaction_edits = record.interaction_edits
        self.interaction_payloads = record.interaction_payloads
        self.response_messages = record.response_messages
        self.synced_commands, self.sync_calls = record.synced_commands, record.sync_calls
        self.requests, self.unhandled = record.requests, record.unhandled
        self.identifies = self.gateway.identifies

    @property
    def identify(self) -> dict[str, Any] | None:
        """The latest IDENTIFY payload (intents, token)."""
        return self.gateway.identify

    # ----------------------------------------------------------------- lifecycle

    @property
    def port(self) -> int:
        return self.state.port

    @port.setter
    def port(self, port: int) -> None:
        """Set by `start`, or by a process that serves this fake from another one."""
        self.state.port = port

    @property
    def base_url(self) -> str:
        return self.state.base_url

    @property
    def api_base(self) -> str:
        return self.state.api_base

    @property
    def gateway_url(self) -> str:
        return self.state.gateway_url

    async def start(self) -> None:
        await self.server.start()

    def install(self) -> None:
        """Point discord.py at this fake (undone by `uninstall`)."""
        self.server.install()

    def uninstall(self) -> None:
        self.server.uninstall()

    async def stop(self) -> None:
        await self.server.stop()

    async def __aenter__(self) -> Self:
        await self.start()
        self.install()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.uninstall()
        await self.stop()

    async def wait_connected(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until a client identified and received READY + GUILD_CREATE."""
        await asyncio.wait_for(self.gateway.ready.wait(), timeout)

    # ----------------------------------------------------------------- the state's lookups

    @property
    def channel(self) -> FakeChannel:
        return self.state.channel

    def channel_named(self, name: str) -> FakeChannel:
        return self.state.channel_named(name)

    def member(self, who: str | int | FakeMember) -> FakeMember:
        return self.state.member(who)

    def add_member(self, member: FakeMember) -> FakeMember:
        return self.state.add_member(member)

    def add_thread(self, name: str, *, parent: str = "general") -> FakeChannel:
        return self.state.add_thread(name, parent=parent)

    def snowflake(self, at: datetime | None = None) -> int:
        return self.state.snowflake(at)

    # ----------------------------------------------------------------- the parts' events

    async def dispatch(self, event: str, data: Mapping[str, Any]) -> None:
        await self.gateway.dispatch(event, data)

    def add_history(self, content: str, **options: Any) -> dict[str, Any]:
        return self.messages.add_history(content, **options)

    def forget_message(self, message_id: int) -> None:
        self.messages.forget_message(message_id)

    async def send_message(self, content: str, **options: Any) -> dict[str, Any]:
        return await self.messages.send_message(content, **options)

    async def edit_message(self, message_id: int, content: str) -> dict[str, Any]:
        return await self.messages.edit_message(message_id, content)

    async def delete_message(self, message_id: int) -> dict[str, Any]:
        return await self.messages.delete_message(message_id)

    async def update_member(self, who: str | int | FakeMember, **changes: Any) -> dict[str, Any]:
        return await self.messages.update_member(who, **changes)

    async def member_join(self, member: FakeMember) -> dict[str, Any]:
        return await self.messages.member_join(member)

    async def invoke_slash(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        user: str | int | FakeMember = "alice",
        channel: FakeChannel | int | str | None = None,
        member_permissions: int | None = None,
    ) -> dict[str, Any]:
        return await self.slash.invoke_slash(
            name, options, user=user, channel=channel, member_permissions=member_permissions
        )

    async def click_button(
        self, interaction_id: int | str, label: str, *, user: str | int | FakeMember = "alice"
    ) -> dict[str, Any]:
        return await self.slash.click_button(interaction_id, label, user=user)

    def interaction_text(self, interaction_id: int | str) -> str:
        return self.slash.interaction_text(interaction_id)

    def add_role(self, name: str, *, permissions: int = 0) -> FakeRole:
        return self.permissions.add_role(name, permissions=permissions)

    async def create_role(self, name: str, *, permissions: int = 0) -> FakeRole:
        return await self.permissions.create_role(name, permissions=permissions)

    async def update_role(self, role: FakeRole | None, *, permissions: int) -> None:
        await self.permissions.update_role(role, permissions=permissions)

    def add_channel(
        self, name: str, *, readable: bool = True, overwrites: Iterable[Overwrite] = ()
    ) -> FakeChannel:
        return self.permissions.add_channel(name, readable=readable, overwrites=overwrites)

    async def create_channel(
        self, name: str, *, readable: bool = True, overwrites: Iterable[Overwrite] = ()
    ) -> FakeChannel:
        return await self.permissions.create_channel(name, readable=readable, overwrites=overwrites)

    async def update_channel(
        self,
        name: str,
        *,
        readable: bool | None = None,
        overwrites: Iterable[Overwrite] | None = None,
    ) -> FakeChannel:
        return await self.permissions.update_channel(name, readable=readable, overwrites=overwrites)

    async def create_thread(
        self, name: str, *, parent: str = "general", private: bool = False
    ) -> FakeChannel:
        return await self.permissions.create_thread(name, parent=parent, private=private)

    # ----------------------------------------------------------------- waiting helpers

    async def wait_for_sent(
        self,
        predicate: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = 5.0,  # noqa: ASYNC109 - a test helper's deadline
        start: int = 0,
    ) -> dict[str, Any]:
        return await self.record.wait_for_sent(predicate, timeout=timeout, start=start)

    async def wait_for_interaction_response(
        self,
        interaction_id: int | str,
        timeout: float = 5.0,  # noqa: ASYNC109 - a test helper's deadline
    ) -> dict[str, Any]:
        return await self.slash.wait_for_interaction_response(interaction_id, timeout)
