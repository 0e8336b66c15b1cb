"""The end-to-end tests' fake Discord, timed: many members and channels, and the moment each
reply's POST arrives (bench/reply_e2e.py).

The fake itself lives in tests/e2e/fake_discord.py (run `python -m bench` from the project
root, as `make bench` does, so `tests` is importable); this subclass only adds members and
channels and notes, per asking message, when the fake received the bot's answer to it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.quality_pools import FILLER
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


class TimedDiscord(FakeDiscord):
    """FakeDiscord with `members` extra members, one channel each, and reply timing."""

    def __init__(self, *, members: int) -> None:
        super().__init__()
        self.extra_members = [
            self.add_member(FakeMember(FIRST_MEMBER_ID + n, f"member{n}", f"Member {n}"))
            for n in range(members)
        ]
        self.extra_channels = [
            FakeChannel(FIRST_CHANNEL_ID + n, f"room-{n}") for n in range(members)
        ]
        for channel in self.extra_channels:
            self.guild.channels.append(channel)
            self.history[channel.id] = {}
        # asking message id -> future of perf_counter() when its answer was POSTed
        self._answers: dict[int, asyncio.Future[float]] = {}
        self.answer_texts: list[str] = []  # what each timed answer said

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
        message = self._build_message(
            text, author=people[index], channel=self.extra_channels[index]
        )
        answer = asyncio.get_running_loop().create_future()
        self._answers[int(message["id"])] = answer
        await self.dispatch("MESSAGE_CREATE", message)
        try:
            return await asyncio.wait_for(answer, timeout)
        finally:
            self._answers.pop(int(message["id"]), None)

    async def _bot_sends(self, channel_id: int, body: dict[str, Any]) -> dict[str, Any]:
        arrived = time.perf_counter()
        reference = body.get("message_reference") or {}
        waiting = self._answers.get(int(reference.get("message_id") or 0))
        if waiting is not None and not waiting.done():
            waiting.set_result(arrived)
            self.answer_texts.append(str(body.get("content") or ""))
        return await super()._bot_sends(channel_id, body)
