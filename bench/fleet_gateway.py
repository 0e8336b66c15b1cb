"""The end-to-end tests' fake Discord serving a fleet: many guilds, each on its shard, and a
message rate spread over them (bench/fleet.py).

The fake itself lives in tests/e2e/fake_discord.py (run `python -m bench` from the project
root, as `make bench` does, so `tests` is importable); `FleetDiscord` holds one (`discord`)
and, handed to it as its READY sender, serves `sizes` guilds instead of one (READY lists a
shard's guilds, one GUILD_CREATE each with all its members, so discord.py needs no member
chunks); it sends MESSAGE_CREATEs at a rate, Zipf-spread over the guilds, to the socket of each
guild's shard. It runs in a process of its own (`FleetProcess`), so building and sending events
is not counted against the bot processes.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from typing import Any

from aiohttp import web

from bench.piped import PipedChild, answer_calls
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember
from tests.e2e.fake_discord_models import guild_payload

# Guild ids spread over shards as Discord's do: shard = (id >> 22) % count.
FIRST_GUILD_ID = 810_000_000_000_000_000
FIRST_CHANNEL_ID = 820_000_000_000_000_000
FIRST_MEMBER_ID = 830_000_000_000_000_000
MEMBER_STRIDE = 10_000  # member ids of guild i: FIRST_MEMBER_ID + i * MEMBER_STRIDE + j
WORDS = ["the", "and", "you", "it", "was", "game", "tonight", "pizza", "work", "coffee", "lol"]


def guild_id(index: int) -> int:
    return FIRST_GUILD_ID + (index << 22)


class FleetDiscord:
    """A FakeDiscord (`discord`, served through it) answering an IDENTIFY with `len(sizes)`
    guilds, guild i with `sizes[i]` members: it hands the fake its READY sender rather than
    overriding the fake's, so the fake's own stays the tests'."""

    def __init__(self, sizes: Sequence[int], *, seed: int = 0) -> None:
        self.discord = FakeDiscord(greet=self._send_ready)
        bot_user = self.discord.bot_user
        self.fleet = [_fleet_guild(index, members) for index, members in enumerate(sizes)]
        self._members = [list(g.members.values()) for g in self.fleet]
        for guild in self.fleet:  # the bot is a member of every guild it serves
            guild.members[bot_user.id] = bot_user
        self._ready_guilds = 0
        self._random = random.Random(seed)
        # Zipf activity: the guild of rank r (its index) talks 1/(r+1) as much as the first.
        self._weights = list(itertools.accumulate(1.0 / (n + 1) for n in range(len(sizes))))

    def _shard_socket(self, index: int) -> web.WebSocketResponse | None:
        gid = guild_id(index)
        for socket, (shard_id, count) in self.discord.gateway.shard_of.items():
            if (gid >> 22) % count == shard_id:
                return socket
        return None

    async def _send_ready(self, socket: web.WebSocketResponse) -> None:
        """The fake's READY sender: READY listing the guilds of the client's shard, then one
        GUILD_CREATE for each."""
        discord, gateway = self.discord, self.discord.gateway
        shard_id, count = gateway.shard_of.get(socket, (0, 1))
        mine = [g for g in self.fleet if (g.id >> 22) % count == shard_id]
        await gateway.send(
            socket,
            "READY",
            {
                "v": 10,
                "user": discord.bot_user.user_payload(),
                "guilds": [{"id": str(g.id), "unavailable": True} for g in mine],
                "shard": [shard_id, count],
                "session_id": f"session-{discord.snowflake()}",
                "resume_gateway_url": discord.gateway_url,
                "application": {"id": str(discord.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        for guild in mine:
            await gateway.send(socket, "GUILD_CREATE", guild_payload(guild))
            self._ready_guilds += 1

    def ready_guilds(self) -> int:
        """GUILD_CREATEs sent so far (every shard's)."""
        return self._ready_guilds

    def connected_shards(self) -> int:
        return len(self.discord.gateway.shard_of)

    def message(self, index: int, at: datetime) -> dict[str, Any]:
        """A MESSAGE_CREATE of guild `index` by one of its members, said at `at`."""
        author = self._random.choice(self._members[index])
        words = self._random.choices(WORDS, k=self._random.randint(3, 12))
        return {
            "id": str(self.discord.snowflake(at)),
            "type": 0,
            "channel_id": str(FIRST_CHANNEL_ID + index),
            "guild_id": str(guild_id(index)),
            "author": author.user_payload(),
            "member": author.member_payload(with_user=False),
            "content": " ".join(words),
            "timestamp": at.isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "flags": 0,
            "components": [],
        }

    async def send_rate(self, rate: float, seconds: float) -> dict[str, float]:
        """MESSAGE_CREATEs at `rate` per second for `seconds`, each guild picked by its Zipf
        weight; how many were sent, the rate achieved and how many guilds spoke."""
        started = time.perf_counter()
        sent, spoke = 0, set()
        while (elapsed := time.perf_counter() - started) < seconds:
            due = int(rate * elapsed) + 1 - sent
            for _ in range(max(0, due)):
                point = self._random.random() * self._weights[-1]
                index = min(_bisect(self._weights, point), len(self._weights) - 1)
                socket = self._shard_socket(index)
                if socket is None:
                    continue
                now = datetime.now(UTC)
                now = now.replace(microsecond=now.microsecond // 1000 * 1000)
                message = self.message(index, now)
                await self.discord.gateway.send(socket, "MESSAGE_CREATE", message)
                sent += 1
                spoke.add(index)
            await asyncio.sleep(0.005)  # pacing the generator, not waiting in a test
        took = time.perf_counter() - started
        return {"sent": sent, "achieved_rate": sent / took, "guilds_spoke": len(spoke)}


def _bisect(cumulative: list[float], point: float) -> int:
    low, high = 0, len(cumulative)
    while low < high:
        middle = (low + high) // 2
        if cumulative[middle] < point:
            low = middle + 1
        else:
            high = middle
    return low


def _fleet_guild(index: int, members: int) -> FakeGuild:
    gid = guild_id(index)
    guild = FakeGuild(
        id=gid,
        name=f"fleet guild {index}",
        owner_id=FIRST_MEMBER_ID + index * MEMBER_STRIDE,
        channels=[FakeChannel(FIRST_CHANNEL_ID + index, "general")],
    )
    for n in range(max(1, members)):
        member_id = FIRST_MEMBER_ID + index * MEMBER_STRIDE + n
        guild.members[member_id] = FakeMember(member_id, f"m{index}_{n}", f"Member {n}")
    return guild


class FleetProcess:
    """`FleetDiscord` in a process of its own, driven over a pipe (as bench/reply_fake.py's
    `FakeProcess`); `port` is where the bot processes connect."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = list(sizes)
        self.port = 0
        self._child = PipedChild(_serve, self.sizes, name="the fleet's fake Discord")

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    async def __aenter__(self) -> FleetProcess:
        self._child.start()
        self.port = await self.call("port")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._child.stop()

    async def call(self, what: str, *args: Any) -> Any:
        return await self._child.call(what, *args)


def _serve(pipe: Connection, sizes: list[int]) -> None:
    asyncio.run(_serving(pipe, sizes))


async def _serving(pipe: Connection, sizes: list[int]) -> None:
    fake = FleetDiscord(sizes)
    await fake.discord.start()

    async def answer(what: str, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
        if what == "port":
            return fake.discord.port
        if what == "status":
            return (fake.connected_shards(), fake.ready_guilds())
        return await fake.send_rate(*args)

    try:
        await answer_calls(pipe, answer)
    finally:
        await fake.discord.stop()
