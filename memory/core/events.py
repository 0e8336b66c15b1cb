"""What one service tells whoever listens, as typed events on one in-process bus.

A publisher names what happened (`FactLearned`), never who cares; who hears each event is
decided in `memory/wiring` only, so "who hears that a fact was learned?" is one search for
the event's name. Handlers run one after another in the order they subscribed, each awaited
before the next; a handler that fails is logged and the others (and the publisher) go on: a
broken cache must never undo what was stored.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from memory.core.models import ChatMessage, Member

_log = logging.getLogger(__name__)

E = TypeVar("E")
Handler = Callable[[E], Awaitable[None] | None]


class EventBus:
    """Event type -> its handlers, in subscription order (by the event's exact type: a
    handler of `AboutMember` hears none of its kinds)."""

    def __init__(self) -> None:
        self._handlers: dict[type[Any], list[Handler[Any]]] = {}

    def subscribe(self, event_type: type[E], handler: Handler[E]) -> None:
        self._handlers.setdefault(event_type, []).append(handler)

    def handlers(self, event_type: type[E]) -> tuple[Handler[E], ...]:
        """Who hears `event_type`, in the order they run."""
        return tuple(self._handlers.get(event_type, ()))

    async def publish(self, event: object) -> None:
        """Every handler of the event's type, in turn; a failure is logged, not raised."""
        for handler in list(self._handlers.get(type(event), ())):
            try:
                result = handler(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                _log.exception("a handler of %s failed: %r", type(event).__name__, handler)


@dataclass(frozen=True, slots=True)
class AboutMember:
    """What every event about one member of one guild carries."""

    guild_id: int
    user_id: int


@dataclass(frozen=True, slots=True)
class MemberChanged(AboutMember):
    """A member's facts changed, or a purge or opt-in touched them: what is built from them
    (contexts, held rows) is stale."""


@dataclass(frozen=True, slots=True)
class FactLearned(AboutMember):
    """Reading chat learned or confirmed a fact about a member: their context is stale."""


@dataclass(frozen=True, slots=True)
class StatementForgotten:
    """A forget was asked for, found or not: the words may live where the blob does not (the
    conversation windows)."""

    guild_id: int
    member: Member
    statement: str


@dataclass(frozen=True, slots=True)
class GuildChanged:
    """An admin changed a guild's settings or a channel's visibility: every context of the
    guild is stale (a new timezone moves day boundaries)."""

    guild_id: int


@dataclass(frozen=True, slots=True)
class MessagesChanged:
    """A stored batch edited or deleted messages, or stored late ones (backfill, import): past
    days' summaries may be stale."""


@dataclass(frozen=True, slots=True)
class MessagesStored:
    """The new messages a batch stored (episodes cut their channels by them), and the edits it
    applied (their new text is embedded again)."""

    messages: tuple[ChatMessage, ...]
    edited: tuple[ChatMessage, ...] = ()


@dataclass(frozen=True, slots=True)
class MembersSeen:
    """The members a batch stored, each with whether its nickname is known."""

    seen: tuple[tuple[Member, bool], ...]


@dataclass(frozen=True, slots=True)
class MemberPurged(AboutMember):
    """A member's messages were deleted (purge, opt-out): episodes they spoke in are cut again
    without them."""


@dataclass(frozen=True, slots=True)
class MemberGone(AboutMember):
    """A member opted out or was purged: their words leave every window, in every process."""


@dataclass(frozen=True, slots=True)
class MemberBack(AboutMember):
    """A member opted in again: their words may enter the windows again."""


__all__ = [
    "AboutMember",
    "EventBus",
    "FactLearned",
    "GuildChanged",
    "Handler",
    "MemberBack",
    "MemberChanged",
    "MemberGone",
    "MemberPurged",
    "MembersSeen",
    "MessagesChanged",
    "MessagesStored",
    "StatementForgotten",
]
