"""What the parts of the fake Discord (gateway, messages, slash commands, permissions, REST;
tests/e2e/fake_discord_*.py) read and call on the one `FakeDiscord` they make up together.

Each part subclasses this protocol so the type checker knows the shared state and the methods
another part or the host defines; `FakeDiscord` (tests/e2e/fake_discord.py) provides them all.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, TypeVar

from aiohttp import web

from tests.e2e.fake_discord_models import FakeAttachment, FakeChannel, FakeGuild, FakeMember

T = TypeVar("T")


class DiscordHost(Protocol):
    """The state and lookups of `FakeDiscord` its parts share."""

    application_id: int
    bot_user: FakeMember
    guild: FakeGuild
    sent_messages: list[dict[str, Any]]
    typing: list[int]
    reactions: list[tuple[int, int, str]]
    interaction_responses: dict[int, dict[str, Any]]
    interaction_edits: dict[int, list[dict[str, Any]]]
    followups: dict[int, list[dict[str, Any]]]
    interaction_payloads: dict[int, dict[str, Any]]
    response_messages: dict[int, dict[str, Any]]
    synced_commands: dict[int | None, list[dict[str, Any]]]
    sync_calls: list[int | None]
    requests: list[tuple[str, str]]
    unhandled: list[tuple[str, str]]
    identify: dict[str, Any] | None
    history: dict[int, dict[int, dict[str, Any]]]
    threads: list[FakeChannel]
    history_forbidden: set[int]
    identifies: list[dict[str, Any]]
    _sockets: set[web.WebSocketResponse]
    _shard_of: dict[web.WebSocketResponse, tuple[int, int]]
    _sequence: itertools.count[int]
    _interactions: dict[str, int]
    _ready: asyncio.Event

    @property
    def base_url(self) -> str: ...

    @property
    def gateway_url(self) -> str: ...

    @property
    def channel(self) -> FakeChannel: ...

    def channel_named(self, name: str) -> FakeChannel: ...

    def member(self, who: str | int | FakeMember) -> FakeMember: ...

    def add_member(self, member: FakeMember) -> FakeMember: ...

    def add_thread(self, name: str, *, parent: str = "general") -> FakeChannel: ...

    def _channel_id(self, channel: FakeChannel | int | str | None) -> int: ...

    def snowflake(self, at: datetime | None = None) -> int: ...

    async def _wait(self, probe: Callable[[], T | None], seconds: float, what: str) -> T: ...

    async def dispatch(self, event: str, data: Mapping[str, Any]) -> None: ...

    def _find_message(self, message_id: int) -> dict[str, Any]: ...

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
    ) -> dict[str, Any]: ...
