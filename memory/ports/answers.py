"""A message addressed to the bot, the answer it gets, and where that answer goes.

`Conversation.answer` is the one use case behind both front ends: the replies cog on Discord
and the console translate their own objects into an `Addressed` and give an `Outlet` that
knows how to show the answer there; what is answered, in which order and in which words is
decided once, in memory. The words of every answer that is not a command's or a model's are
here, so Discord and the console cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from memory.commands import RepliedMessage
from memory.core.models import Member
from memory.replies import IncomingMessage

APOLOGY = "Sorry, I couldn't come up with an answer just now. Please try again in a moment."
SLOW_DOWN = "That's a lot at once - give me a minute before the next one."
COMMAND_FAILED = "Sorry, something went wrong while I was handling that. Please try again later."
# To a member who opted out and addresses the bot: a reply in the channel cannot be private, so
# it is one short line rather than silence (which reads as the bot being broken).
NOT_REMEMBERED = (
    "You opted out here, so I don't remember you or answer from memory; "
    "{optin} lets me remember you again."
)
OPT_IN_HINT = (
    "(This server keeps memories only of members who agreed: I won't remember you here unless"
    " you run {optin}.)"
)


class AnswerKind(StrEnum):
    """Which step of the use case answered (what a test or the telemetry compares)."""

    COMMAND = "command"
    NOT_REMEMBERED = "not_remembered"
    CATCH_UP = "catch_up"
    SLOW_DOWN = "slow_down"
    SILENT = "silent"
    REPLY = "reply"


@dataclass(frozen=True, slots=True)
class Addressed:
    """A member's message to the bot, with the addressing ("Bot," / the mention) removed.

    `message.viewer` is whose eyes the answer is for: everyone who reads the channel it is
    posted in (a catch-up and a reply quote only what all of them may read).
    """

    message: IncomingMessage
    author: Member
    replied_to: RepliedMessage | None = None
    can_manage_guild: bool = False
    mentions: Sequence[Member] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """What the bot said to an addressed message ('' when it says nothing)."""

    kind: AnswerKind
    text: str = ""


class Outlet(Protocol):
    """Where an answer is shown: a Discord channel, or the console's terminal."""

    @property
    def optin_command(self) -> str:
        """How a member opts in where they read the answer (`/memory optin`, `/optin`)."""
        ...

    def working(self, *, show: bool) -> AbstractAsyncContextManager[None]:
        """Around the work of a command or a reply: a typing indicator (when `show`)."""
        ...

    async def send(self, answer: Answer) -> int | None:
        """Show the answer; the id of the (last) message it was posted as, None if not sent."""
        ...
