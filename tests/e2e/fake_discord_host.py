"""What the parts of the fake Discord (gateway, messages, slash commands, permissions, REST;
tests/e2e/fake_discord_*.py) share, handed to each in its constructor by `FakeDiscord`
(tests/e2e/fake_discord.py): the guild and its lookups (`DiscordState`), the record of what
the bot did (`BotRecord`), and what a part needs of the gateway (`Dispatcher`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from tests.e2e.fake_discord_models import (
    ALICE_ID,
    BOB_ID,
    DISCORD_EPOCH_MS,
    GENERAL_ID,
    OTHERBOT_ID,
    OWNER_ID,
    RANDOM_ID,
    SECRET_ID,
    FakeChannel,
    FakeGuild,
    FakeMember,
)
from tests.support import eventually

T = TypeVar("T")


class Dispatcher(Protocol):
    """The gateway as the other parts use it: send an event, and know whether anyone listens
    (the bot's own messages are echoed only to a connected client)."""

    async def dispatch(self, event: str, data: Mapping[str, Any]) -> None: ...

    @property
    def connected(self) -> bool: ...


def _default_guild(guild_id: int, bot_user: FakeMember) -> FakeGuild:
    """One guild: channels general/random/secret, members alice, bob, otherbot and the bot."""
    guild = FakeGuild(
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
        bot_user,
    ):
        guild.members[member.id] = member
    return guild


class DiscordState:
    """The guild as the fake holds it (members, channels, threads, history), its address, and
    the lookups every part reads it through, so no part keeps a copy of another's data."""

    def __init__(self, *, guild_id: int, application_id: int) -> None:
        self.application_id = application_id
        self.bot_user = FakeMember(application_id, "memorybot", "MemoryBot", bot=True)
        self.guild = _default_guild(guild_id, self.bot_user)
        self.history: dict[int, dict[int, dict[str, Any]]] = {c.id: {} for c in self.guild.channels}
        self.threads: list[FakeChannel] = []  # active threads, listed by REST only
        self.history_forbidden: set[int] = set()  # channel ids whose history answers 403
        self.port = 0  # set once the server listens
        self._increment = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    @property
    def channel(self) -> FakeChannel:
        return self.guild.channels[0]

    def channel_named(self, name: str) -> FakeChannel:
        for channel in [*self.guild.channels, *self.threads]:
            if channel.name == name:
                return channel
        raise KeyError(name)

    def channel_id(self, channel: FakeChannel | int | str | None) -> int:
        """The id of a channel given as itself, its id, its name, or None (general)."""
        if channel is None:
            return self.channel.id
        if isinstance(channel, FakeChannel):
            return channel.id
        if isinstance(channel, str):
            return self.channel_named(channel).id
        return channel

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

    def snowflake(self, at: datetime | None = None) -> int:
        """A fresh, increasing snowflake for `at` (default now)."""
        ms = int((at.timestamp() if at else time.time()) * 1000)
        return ((ms - DISCORD_EPOCH_MS) << 22) | (next(self._increment) & 0xFFF)

    def find_message(self, message_id: int) -> dict[str, Any]:
        """A message of any channel's history (KeyError: REST answers 404)."""
        for messages in self.history.values():
            if message_id in messages:
                return messages[message_id]
        raise KeyError(message_id)


@dataclass
class BotRecord:
    """What the bot did over REST (newest last) and the interactions it was sent, kept for
    tests to read and wait on; the parts append, nothing here is ever replaced."""

    sent_messages: list[dict[str, Any]] = field(default_factory=list)
    typing: list[int] = field(default_factory=list)
    reactions: list[tuple[int, int, str]] = field(default_factory=list)
    interaction_responses: dict[int, dict[str, Any]] = field(default_factory=dict)
    interaction_edits: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    followups: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    interaction_payloads: dict[int, dict[str, Any]] = field(default_factory=dict)  # sent
    response_messages: dict[int, dict[str, Any]] = field(default_factory=dict)  # answering each
    interactions: dict[str, int] = field(default_factory=dict)  # token -> interaction id
    synced_commands: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    sync_calls: list[int | None] = field(default_factory=list)  # scope of every sync, in order
    requests: list[tuple[str, str]] = field(default_factory=list)
    unhandled: list[tuple[str, str]] = field(default_factory=list)

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

        return await self.wait(find, timeout, "sent message")

    async def wait(self, probe: Callable[[], T | None], seconds: float, what: str) -> T:
        """`probe`'s first truthy answer; a timeout names what the bot sent instead."""
        try:
            found: T = await eventually(probe, seconds)
            return found
        except TimeoutError:
            raise TimeoutError(
                f"no {what} within {seconds}s; sent: {self.sent_messages!r}"
            ) from None
