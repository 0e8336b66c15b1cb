"""A synthetic guild: members, days of chat, replies and mentions; seeded and deterministic.

Chat is shaped like a real server's: a few members talk a lot and most talk a little (Zipf
activity), message lengths are log-normal (median ~35 characters, a long tail up to Discord's
2000), more is said in the evening, some messages reply to a recent one in the same channel and
some mention another member. Message ids are snowflakes derived from the timestamp, so they
grow with time like Discord's. A few words are emoji or accented, as in real chat
(`ascii_only` leaves them out). The same spec always yields the same guild.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import asyncpg

from db import facts as facts_store
from db.guilds import ensure_guilds
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member

_log = logging.getLogger(__name__)

# "Now" of every benchmark: a Saturday evening. A fixed clock keeps runs comparable.
NOW = datetime(2026, 3, 14, 18, 0, tzinfo=UTC)
DISCORD_EPOCH_MS = 1_420_070_400_000
FIRST_USER_ID = 300_000_000_000_000_000


def _words(text: str) -> list[str]:
    return text.split()


_FIRST = _words(
    "Alex Sam Robin Kim Noa Lou Max Eli Jo Ari Dana Remy Yuki Ines Omar Lena Tariq Mila Hugo Zoe"
)
_SECOND = _words("fox owl bear wolf lynx crow hare moth newt seal wren yak")
_WORDS = _words(
    "the a and to I you it is was that of in for on with just so lol yeah no ok really think "
    "know like got going today tomorrow tonight game match raid build patch server music album "
    "song movie book work shift boss meeting deadline exam class lunch dinner pizza coffee tea "
    "cat dog walk run gym train bus rain sun weekend trip city beach mountain home back later "
    "again maybe never always new old good bad great weird funny tired busy happy late early "
    "café naïve 🎉 😂 👍 ❤️"
)
_ASCII_WORDS = [word for word in _WORDS if word.isascii()]
_TOPICS = (
    "I'm moving to {city} next month",
    "my {pet} knocked the {thing} over again",
    "started learning {skill} this week",
    "finally finished the {thing} I was building",
    "I have an exam in {skill} on Monday",
    "we're going to {city} for the weekend",
    "my sister just got a {pet}",
    "work has been brutal, double shift again",
    "I think I'm getting sick, staying in tonight",
    "just got back from {city}, it was amazing",
)
_FILL = {
    "city": _words("Lyon Oslo Kyoto Lisbon Quebec Tartu Porto Krakow"),
    "pet": _words("cat dog parrot hamster lizard rabbit"),
    "thing": _words("plant lamp keyboard mug shelf aquarium"),
    "skill": _words("piano Rust Japanese chess pottery climbing"),
}


@dataclass(frozen=True)
class GuildSpec:
    """What to generate. `days` ends with today (cut at `now`); `skew` is the Zipf exponent of
    member activity (0: everyone talks equally)."""

    guild_id: int = 1
    members: int = 50
    messages_per_day: int = 500
    days: int = 7
    channels: int = 4
    seed: int = 0
    skew: float = 1.0
    reply_rate: float = 0.25
    mention_rate: float = 0.15
    facts_rate: float = 0.3
    now: datetime = NOW
    ascii_only: bool = False  # no emoji or accents (CPython then stores 1 byte per char)


class SyntheticGuild:
    """Members and messages of one `GuildSpec`, generated on demand (same spec, same output)."""

    def __init__(self, spec: GuildSpec) -> None:
        self.spec = spec
        base = FIRST_USER_ID + spec.guild_id * 1_000_000
        self.user_ids = [base + index for index in range(spec.members)]
        weights = [1.0 / (rank + 1) ** spec.skew for rank in range(spec.members)]
        self._cumulative = list(itertools.accumulate(weights))

    @property
    def today(self) -> date:
        return self.spec.now.date()

    def day(self, offset: int) -> date:
        """The day `offset` days before today."""
        return self.today - timedelta(days=offset)

    def members(self) -> list[Member]:
        rnd = random.Random(f"members-{self.spec.seed}-{self.spec.guild_id}")
        result = []
        for index, user_id in enumerate(self.user_ids):
            username = f"{_FIRST[index % len(_FIRST)].lower()}_{index}"
            first = _FIRST[index % len(_FIRST)]
            global_name = f"{first} {rnd.choice(_SECOND).title()}" if rnd.random() < 0.6 else None
            nickname = f"{first}{index}" if rnd.random() < 0.3 else None
            result.append(
                Member(
                    guild_id=self.spec.guild_id,
                    user_id=user_id,
                    username=username,
                    global_name=global_name,
                    nickname=nickname,
                )
            )
        return result

    def facts(self) -> dict[int, str]:
        """A facts blob for `facts_rate` of the members, as remember commands would leave."""
        rnd = random.Random(f"facts-{self.spec.seed}-{self.spec.guild_id}")
        blobs = {}
        for index, user_id in enumerate(self.user_ids):
            if rnd.random() >= self.spec.facts_rate:
                continue
            name = _FIRST[index % len(_FIRST)]
            sentences = [
                f"{name} lives in {rnd.choice(_FILL['city'])}.",
                f"{name} has a {rnd.choice(_FILL['pet'])}.",
                f"{name} is learning {rnd.choice(_FILL['skill'])}.",
            ]
            blobs[user_id] = " ".join(sentences[: rnd.randint(1, 3)])
        return blobs

    def messages(self, offset: int) -> list[ChatMessage]:
        """Day `offset`'s messages in time order (today's stop at `now`)."""
        spec = self.spec
        rnd = random.Random(f"day-{spec.seed}-{spec.guild_id}-{self.day(offset).isoformat()}")
        day = self.day(offset)
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        seconds = sorted(_evening_weighted_second(rnd) for _ in range(spec.messages_per_day))
        limit = (spec.now - start).total_seconds() if offset == 0 else 86_400
        recent: dict[int, list[ChatMessage]] = {}
        result: list[ChatMessage] = []
        for sequence, second in enumerate(seconds):
            if second >= limit:
                break
            at = start + timedelta(seconds=second)
            author = self._pick(rnd)
            channel = 10_000 + spec.guild_id * 100 + rnd.randrange(spec.channels)
            content = _content(rnd, _ASCII_WORDS if spec.ascii_only else _WORDS)
            mentions: tuple[int, ...] = ()
            reply_to: int | None = None
            if rnd.random() < spec.mention_rate and spec.members > 1:
                other = self._pick(rnd)
                if other != author:
                    mentions = (other,)
                    content = f"<@{other}> {content}"
            history = recent.setdefault(channel, [])
            if history and rnd.random() < spec.reply_rate:
                target = rnd.choice(history[-20:])
                reply_to = target.message_id
            message = ChatMessage(
                message_id=_snowflake(at, sequence),
                guild_id=spec.guild_id,
                channel_id=channel,
                author_id=author,
                content=content,
                created_at=at,
                reply_to_id=reply_to,
                mention_ids=mentions,
            )
            history.append(message)
            result.append(message)
        return result

    def all_messages(self) -> Iterator[list[ChatMessage]]:
        """Each day's messages, oldest day first."""
        for offset in range(self.spec.days - 1, -1, -1):
            yield self.messages(offset)

    def _pick(self, rnd: random.Random) -> int:
        point = rnd.random() * self._cumulative[-1]
        index = min(bisect.bisect_left(self._cumulative, point), len(self.user_ids) - 1)
        return self.user_ids[index]


def _evening_weighted_second(rnd: random.Random) -> float:
    """A second of the day, busier from 17:00 to 23:00 (half the messages)."""
    if rnd.random() < 0.5:
        return rnd.uniform(17 * 3600, 86_400 - 1)
    return rnd.uniform(0, 86_400 - 1)


def _content(rnd: random.Random, vocabulary: Sequence[str]) -> str:
    """Log-normal length (median ~35 chars, capped at 2000), sometimes about the author's life."""
    if rnd.random() < 0.12:
        text = rnd.choice(_TOPICS)
        for key, values in _FILL.items():
            text = text.replace("{" + key + "}", rnd.choice(values))
        return text
    target = min(2000, max(1, int(rnd.lognormvariate(math.log(35), 0.9))))
    words: list[str] = []
    length = 0
    while length < target:
        word = rnd.choice(vocabulary)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:target]


def _snowflake(at: datetime, sequence: int) -> int:
    milliseconds = int(at.timestamp() * 1000) - DISCORD_EPOCH_MS
    return (milliseconds << 22) | (sequence & 0x3FFFFF)


async def load_guild(
    pool: asyncpg.Pool,
    guild: SyntheticGuild,
    *,
    days: Sequence[int] | None = None,
    batch: int = 5000,
    analyze: bool = True,
) -> int:
    """Store the guild's row, members, facts and the messages of `days` (offsets; default all).

    Returns how many messages were stored.
    """
    await ensure_guilds(pool, [(guild.spec.guild_id, f"bench guild {guild.spec.guild_id}")])
    await upsert_members(pool, guild.members())
    for user_id, blob in guild.facts().items():
        async with pool.acquire() as connection, connection.transaction():
            await facts_store.lock_facts(connection, guild.spec.guild_id, user_id)
            await facts_store.write_blob(connection, guild.spec.guild_id, user_id, blob)
    offsets = list(days) if days is not None else list(range(guild.spec.days - 1, -1, -1))
    stored = 0
    for offset in offsets:
        messages = guild.messages(offset)
        for start in range(0, len(messages), batch):
            stored += await insert_messages(pool, messages[start : start + batch])
    if analyze:  # planner statistics, as autovacuum keeps them on a live server
        await pool.execute("ANALYZE")
    return stored


async def store_messages(
    pool: asyncpg.Pool, messages: Sequence[ChatMessage], batch: int = 5000
) -> int:
    """Insert messages in batches (the simulations feed one hour at a time)."""
    stored = 0
    for start in range(0, len(messages), batch):
        stored += await insert_messages(pool, messages[start : start + batch])
    return stored
