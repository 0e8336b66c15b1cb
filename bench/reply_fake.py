"""The end-to-end tests' fake Discord, timed: many members and channels, and the moment each
reply's POST arrives (bench/reply_e2e.py).

The fake itself lives in tests/e2e/fake_discord.py (run `python -m bench` from the project
root, as `make bench` does, so `tests` is importable); `TimedDiscord` holds one (`discord`),
adds members and channels to it, and, handed to it as the observer of what the bot sends,
notes per asking message when the fake received the bot's answer to it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from typing import Any

from bench.piped import PipedChild, answer_calls
from bench.quality_pools import FILLER
from memory.core.models import ChatMessage
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeMember

FIRST_MEMBER_ID = 800_000_000_000_010_000
FIRST_CHANNEL_ID = 800_000_000_000_020_000
# What members ask: some about the past (recall runs), some name another member (their
# memories are gathered too), some neither.
QUESTIONS = (
    "Bot, when did we last talk about the concert?",
    "Bot, what has {other} been up to lately?",
    "Bot, any idea what I should cook tonight?",
    "Bot, what did {other} say about the trip yesterday?",
    "Bot, how was everyone's weekend?",
    "Bot, is {other} still learning the guitar?",
)


# What members said before: chatter, and lines the questions above may find.
SAID = (
    *FILLER,
    "the concert yesterday was amazing, the drummer was unreal",
    "we're planning a trip to Lisbon in the spring",
    "I've been learning the guitar for a month now",
    "cooked ramen tonight, turned out great",
    "{other} told me about the trip, sounds fun",
    "weekend was quiet, mostly gardening",
)


class TimedDiscord:
    """A FakeDiscord (`discord`, served and installed through it) with `members` extra
    members, one channel each, and reply timing: it watches what the bot sends rather than
    overriding how the fake handles it, so the fake's own handling stays the tests'."""

    def __init__(self, *, members: int) -> None:
        # asking message id -> future of perf_counter() when its answer was POSTed
        self._answers: dict[int, asyncio.Future[float]] = {}
        self.answer_texts: list[str] = []  # what each timed answer said
        self.discord = discord = FakeDiscord(on_bot_sends=self._bot_sends)
        self.extra_members = [
            discord.add_member(FakeMember(FIRST_MEMBER_ID + n, f"member{n}", f"Member {n}"))
            for n in range(members)
        ]
        self.extra_channels = [
            FakeChannel(FIRST_CHANNEL_ID + n, f"room-{n}") for n in range(members)
        ]
        for channel in self.extra_channels:
            discord.guild.channels.append(channel)
            discord.history[channel.id] = {}

    def said(self, n: int) -> str:
        """The `n`th line of the guild's history (by member `n`, cycling)."""
        people = self.extra_members
        return SAID[n % len(SAID)].format(other=people[(n + 1) % len(people)].username)

    def question(self, index: int, number: int) -> str:
        """Question `number` (cycling) as member `index` asks it (naming the next member)."""
        people = self.extra_members
        return QUESTIONS[(index + number) % len(QUESTIONS)].format(
            other=people[(index + 1) % len(people)].username
        )

    async def ask(self, index: int, number: int, *, timeout: float = 60.0) -> float:  # noqa: ASYNC109
        """Member `index` asks question `number` (cycling) in their channel; returns the
        perf_counter() at which the answer's POST arrived."""
        people = self.extra_members
        text = self.question(index, number)
        message = self.discord.messages.build(
            text, author=people[index], channel=self.extra_channels[index]
        )
        answer = asyncio.get_running_loop().create_future()
        self._answers[int(message["id"])] = answer
        await self.discord.dispatch("MESSAGE_CREATE", message)
        try:
            return await asyncio.wait_for(answer, timeout)
        finally:
            self._answers.pop(int(message["id"]), None)

    def _bot_sends(self, channel_id: int, body: dict[str, Any]) -> None:
        """The fake's observer of what the bot POSTs, told before the fake handles it: the
        moment an answer to a timed question arrived, and what it said."""
        arrived = time.perf_counter()
        reference = body.get("message_reference") or {}
        waiting = self._answers.get(int(reference.get("message_id") or 0))
        if waiting is not None and not waiting.done():
            waiting.set_result(arrived)
            self.answer_texts.append(str(body.get("content") or ""))

    def add_chat_history(self, count: int) -> list[ChatMessage]:
        """`count` messages over the last two days, each member in their own channel and in the
        first one, kept in the channels' history (so the bot's reconcile on connecting finds
        them, as on Discord) and returned for the bench to store as the bot would have."""
        now = datetime.now(UTC)
        people, rooms = self.extra_members, self.extra_channels
        stored: list[ChatMessage] = []
        for n in range(count):
            author = people[n % len(people)]
            room = rooms[0] if n % 3 == 0 else rooms[n % len(rooms)]
            at = now - timedelta(hours=48) + timedelta(seconds=n * 170_000 // max(1, count))
            payload = self.discord.add_history(
                self.said(n), author=author, channel=room, created_at=at
            )
            stored.append(
                ChatMessage(
                    message_id=int(payload["id"]),
                    guild_id=self.discord.guild.id,
                    channel_id=room.id,
                    author_id=author.id,
                    content=payload["content"],
                    created_at=datetime.fromisoformat(payload["timestamp"]),
                )
            )
        return stored

    async def asking(self, asking: Sequence[int], number: int, *, at_once: bool) -> list[float]:
        """Members `asking` ask question `number`, all in the same instant or each waiting for
        the previous answer; the seconds from each event to its answer's POST."""
        if at_once:
            started = time.perf_counter()
            answered = await asyncio.gather(*(self.ask(i, number) for i in asking))
            return [at - started for at in answered]
        seconds = []
        for index in asking:
            started = time.perf_counter()
            seconds.append(await self.ask(index, number) - started)
        return seconds


class FakeProcess:
    """The timed fake Discord in a process of its own, so its CPU (building and sending the
    gateway events, answering REST calls) is neither queued on the bot's event loop nor
    counted in the bot's time: the reply is timed from outside, as on Discord. The parent keeps
    an unstarted `TimedDiscord` of the same shape (`local`) for ids and names, and points
    discord.py at the child's port through its FakeDiscord (`local.discord`)."""

    def __init__(self, *, members: int) -> None:
        self.members = members
        self.local = TimedDiscord(members=members)
        self._child = PipedChild(_serve, members, name="the fake Discord")

    async def __aenter__(self) -> FakeProcess:
        self._child.start()
        self.local.discord.port = await self._child.call("port")
        self.local.discord.install()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.local.discord.uninstall()
        await self._child.stop()

    async def add_chat_history(self, count: int) -> list[ChatMessage]:
        stored: list[ChatMessage] = await self._child.call("add_chat_history", count)
        return stored

    async def asking(self, asking: Sequence[int], number: int, *, at_once: bool) -> list[float]:
        times: list[float] = await self._child.call("asking", list(asking), number, at_once=at_once)
        return times

    async def answer_texts(self) -> list[str]:
        texts: list[str] = await self._child.call("answer_texts")
        return texts


def _serve(pipe: Connection, members: int) -> None:
    """The fake's process: start it, then run what the parent asks until "stop"."""
    asyncio.run(_serving(pipe, members))


async def _serving(pipe: Connection, members: int) -> None:
    fake = TimedDiscord(members=members)
    await fake.discord.start()

    async def answer(what: str, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
        if what == "port":
            return fake.discord.port
        if what == "answer_texts":
            return list(fake.answer_texts)
        if what == "add_chat_history":
            return fake.add_chat_history(*args)
        return await fake.asking(*args, **options)

    try:
        await answer_calls(pipe, answer)
    finally:
        await fake.discord.stop()
