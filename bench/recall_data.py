"""A big guild for the recall benchmark, written fast with COPY.

A million messages through the ingest writer would take minutes of Python; COPY
(`copy_records_to_table`) takes the same path inside PostgreSQL that matters for search (the
V011 trigger makes every row's vector with the guild's configuration, the GIN index takes it).
Words follow a Zipf law over a vocabulary of chat words, names, topics and 20,000 rare
pseudo-words, so a question's terms match as many rows as real chat would: "game" or "work" in
tens of thousands of messages, "marathon" in a few hundred, "Biscuit" only where it was said.
Planted messages answer the benchmark's questions, so the ranking can be checked at scale.
"""

from __future__ import annotations

import itertools
import logging
import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from db.guilds import ensure_guilds
from db.members import upsert_members
from db.types import Connection
from memory.core.models import Member

_log = logging.getLogger(__name__)

NOW = datetime(2026, 3, 14, 18, 0, tzinfo=UTC)
DISCORD_EPOCH_MS = 1_420_070_400_000
FIRST_USER_ID = 400_000_000_000_000_000
COPY_CHUNK = 50_000
# A guild's channels, its messages spread evenly over them (ids CHANNEL_BASE + guild * 1000 + n).
CHANNELS = 8
CHANNEL_BASE = 50_000


def _words(text: str) -> list[str]:
    return text.split()


# Most frequent first: what every chat is made of.
_COMMON = _words(
    "the a and to I you it is was that of in for on with just so lol yeah no ok really think "
    "know like got going today tomorrow tonight game match raid build patch server music album "
    "song movie book work shift boss meeting deadline exam class lunch dinner pizza coffee tea "
    "cat dog walk run gym train bus rain sun weekend trip city beach mountain home back later "
    "again maybe never always new old good bad great weird funny tired busy happy late early"
)
NAMES = _words(
    "alex sam robin kim noa lou max eli jo ari dana remy yuki ines omar lena tariq mila hugo "
    "zoe bob"
)
_TOPICS = _words(
    "lyon oslo kyoto lisbon quebec tartu porto krakow berlin madrid parrot hamster lizard rabbit "
    "plant lamp keyboard mug shelf aquarium piano rust japanese chess pottery climbing concert "
    "festival guitar drums vet dentist birthday wedding apartment landlord marathon ramen sushi "
    "allergy peanut bouldering station river bakery exam thesis interview promotion flight "
    "hotel camping hiking bike ferry museum"
)


@dataclass(frozen=True)
class Needle:
    """A question a member might ask, and the message (said long ago) that answers it."""

    question: str
    answer: str
    author: str


QUESTIONS = (
    Needle("When did sam go to that climbing gym?", "went to the new climbing gym with sam", "sam"),
    Needle("what did bob say about Berlin?", "Berlin in winter is grey but the techno is", "bob"),
    Needle("who has a peanut allergy?", "careful with that cake, I have a peanut allergy", "noa"),
    Needle("where did dana move to?", "dana moved to Porto, new apartment by the river", "dana"),
    Needle("what was the name of kim's dog?", "kim's dog Biscuit ate my whole sandwich", "eli"),
    Needle("when is the pottery class?", "the pottery class is on thursdays at seven", "mila"),
    Needle(
        "which concert did we see in Lisbon?", "that Radiohead concert in Lisbon was unreal", "jo"
    ),
    Needle(
        "who recommended the ramen place?", "omar recommended the ramen place by the station", "lou"
    ),
    Needle(
        "what game did we raid last weekend?",
        "raid night in the new game last weekend was chaos",
        "max",
    ),
    Needle(
        "did anyone finish the marathon?",
        "finished the marathon in four hours, legs are gone",
        "ari",
    ),
)


# Thirty-word questions (25.5: "p99 of a 30-word question on a 1M-message guild"): a needle's
# question buried in chat words, names and topics, as a member rambling at the bot would write.
LONG_QUESTIONS = (
    Needle(
        "hey so I was thinking about this all day at work and wanted to ask you, when did sam go"
        " to that climbing gym downtown near the station, was it before or after the concert?",
        QUESTIONS[0].answer,
        QUESTIONS[0].author,
    ),
    Needle(
        "ok random one but my friend keeps asking and I forgot, what did bob say about Berlin"
        " last winter when we talked about the trip, the techno, the weather and the hotel?",
        QUESTIONS[1].answer,
        QUESTIONS[1].author,
    ),
    Needle(
        "before the birthday dinner tomorrow night I really need to know who has a peanut"
        " allergy here, because the cake from the bakery has nuts and I do not want any drama",
        QUESTIONS[2].answer,
        QUESTIONS[2].author,
    ),
    Needle(
        "did anyone actually finish the marathon last spring, I remember someone training every"
        " weekend in the rain with a new bike and good shoes but I never heard how it went",
        QUESTIONS[9].answer,
        QUESTIONS[9].author,
    ),
)


def _pseudo_words(count: int, rnd: random.Random) -> list[str]:
    """Distinct pronounceable words standing for everything rarer than the lists above."""
    syllables = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
    taken = {word.lower() for word in _COMMON + NAMES + _TOPICS}
    words: dict[str, None] = {}
    while len(words) < count:
        word = "".join(rnd.choices(syllables, k=rnd.randint(2, 4)))
        if word not in taken:
            words.setdefault(word, None)
    return list(words)


class RecallGuild:
    """The guild's members and messages for one (messages, members, days, seed)."""

    def __init__(
        self,
        guild_id: int,
        messages: int,
        members: int,
        days: int,
        seed: int = 0,
        *,
        channels: int = CHANNELS,
    ) -> None:
        self.guild_id, self.size, self.days, self.channels = guild_id, messages, days, channels
        self.user_ids = [FIRST_USER_ID + guild_id * 100_000 + index for index in range(members)]
        self._rnd = random.Random(f"recall-{seed}-{guild_id}")
        topical = NAMES + _TOPICS
        self._rnd.shuffle(topical)
        vocabulary = _COMMON + topical + _pseudo_words(20_000, self._rnd)
        self._words = vocabulary
        self._word_weights = list(
            itertools.accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(len(vocabulary)))
        )
        self._author_weights = list(
            itertools.accumulate(1.0 / (rank + 1) for rank in range(members))
        )

    def members(self) -> list[Member]:
        """Members named after NAMES first (so a needle's author has the name it is asked by)."""
        return [
            Member(self.guild_id, user_id, username=_name(index))
            for index, user_id in enumerate(self.user_ids)
        ]

    def author(self, name: str) -> int:
        return self.user_ids[NAMES.index(name)]

    def records(self) -> itertools.chain[tuple[Any, ...]]:
        """COPY records of every message: the chat in chunks, then the planted answers."""
        chunks = (
            self._chunk(start, min(COPY_CHUNK, self.size - start))
            for start in range(0, self.size, COPY_CHUNK)
        )
        return itertools.chain(*chunks, self._needles())

    def _chunk(self, start: int, count: int) -> list[tuple[Any, ...]]:
        rnd = self._rnd
        lengths = [
            min(300, max(1, round(rnd.lognormvariate(math.log(6), 0.8)))) for _ in range(count)
        ]
        words = rnd.choices(self._words, cum_weights=self._word_weights, k=sum(lengths))
        authors = rnd.choices(self.user_ids, cum_weights=self._author_weights, k=count)
        span = self.days * 86_400
        rows, offset = [], 0
        for index, (length, author) in enumerate(zip(lengths, authors, strict=True)):
            at = NOW - timedelta(seconds=rnd.uniform(0, span))
            mentions = [rnd.choice(self.user_ids)] if rnd.random() < 0.1 else []
            content = " ".join(words[offset : offset + length])
            offset += length
            rows.append(self._row(start + index, author, content, at, mentions))
        return rows

    def summary_records(self, per_day: int) -> list[tuple[Any, ...]]:
        """(guild, day, member, summary) of `per_day` of the most active members each day,
        about 300 characters each, like the daily summaries a closed day leaves."""
        rnd = random.Random(f"summaries-{self.guild_id}")
        rows = []
        for offset in range(self.days):
            day = (NOW - timedelta(days=offset)).date()
            for user_id in self.user_ids[:per_day]:
                words = rnd.choices(self._words, cum_weights=self._word_weights, k=50)
                rows.append((self.guild_id, day, user_id, " ".join(words)[:300]))
        return rows

    @property
    def vocabulary(self) -> list[str]:
        """Every word, most frequent first."""
        return self._words

    def needle_records(self) -> list[tuple[Any, ...]]:
        return self._needles()

    def _needles(self) -> list[tuple[Any, ...]]:
        rnd = random.Random(f"needles-{self.guild_id}")
        return [
            self._row(
                self.size + index,
                self.author(needle.author),
                needle.answer,
                NOW - timedelta(days=rnd.uniform(self.days / 2, self.days)),
                [],
            )
            for index, needle in enumerate(QUESTIONS)
        ]

    def _row(
        self, sequence: int, author: int, content: str, at: datetime, mentions: list[int]
    ) -> tuple[Any, ...]:
        millis = int(at.timestamp() * 1000) - DISCORD_EPOCH_MS
        message_id = (millis << 22) | (sequence & 0x3FFFFF)
        channel = CHANNEL_BASE + self.guild_id * 1000 + sequence % self.channels
        return (message_id, self.guild_id, channel, author, content, at, None, mentions)


def _name(index: int) -> str:
    return NAMES[index] if index < len(NAMES) else f"member{index}"


COLUMNS = (
    "message_id",
    "guild_id",
    "channel_id",
    "author_id",
    "content",
    "created_at",
    "reply_to_id",
    "mention_ids",
)


# Rows per INSERT ... SELECT of the SQL fill (each statement's triggers see this many rows).
SQL_CHUNK = 100_000
# The chat generated inside PostgreSQL, as `_chunk` makes it in Python: words Zipf-distributed
# (log-uniform ranks: P(rank <= r) = ln(r + 1) / ln(n + 1)), lengths log-normal around 6 words,
# authors Zipf over the members, 10% of messages mentioning someone, the guild's channels, a
# year.
_SQL_CHAT = f"""
    INSERT INTO messages (message_id, guild_id, channel_id, author_id, content, created_at,
                          mention_ids)
    SELECT ((extract(epoch FROM r.at) * 1000)::bigint - {DISCORD_EPOCH_MS}) << 22
               | (g & 4194303),
           $1::bigint, {CHANNEL_BASE} + $1::bigint * 1000 + g % $8::int,
           ($3::bigint[])[floor(exp(random() * ln(cardinality($3::bigint[]) + 1)))::int],
           w.content, r.at,
           CASE WHEN random() < 0.1
                THEN ARRAY[($3::bigint[])[1 + floor(random() * cardinality($3::bigint[]))::int]]
                ELSE '{{}}'::bigint[] END
    FROM generate_series($4::bigint, $5::bigint) AS g
    CROSS JOIN LATERAL (
        SELECT $6::timestamptz - random() * $7::interval AS at,
               least(300, greatest(1, round(exp(random_normal(ln(6), 0.8)))))::int + g * 0
                   AS length
    ) r
    CROSS JOIN LATERAL (
        SELECT string_agg(
                   ($2::text[])[floor(exp(random() * ln(cardinality($2::text[]) + 1)))::int], ' '
               )
                   AS content
        FROM generate_series(1, r.length + g * 0)
    ) w
"""


async def _fill_sql(connection: Connection, guild: RecallGuild) -> int:
    """The chat generated by PostgreSQL itself (generate_series), SQL_CHUNK rows a statement:
    no Python per message, so a million messages take the time the triggers and indexes do."""
    span = timedelta(days=guild.days)
    # The planner would memoize the words subquery by length (random() or not): every message
    # of one length would say the same thing.
    await connection.execute("SET enable_memoize = off")
    await connection.execute("SELECT setseed(0.25)")  # the same chat on every run
    for start in range(0, guild.size, SQL_CHUNK):
        end = min(start + SQL_CHUNK, guild.size) - 1
        chat = (guild.guild_id, guild.vocabulary, guild.user_ids, start, end, NOW, span)
        await connection.execute(_SQL_CHAT, *chat, guild.channels)
    await connection.copy_records_to_table(
        "messages", records=guild.needle_records(), columns=COLUMNS
    )
    return guild.size + len(QUESTIONS)


async def fill(
    pool: asyncpg.Pool, guild: RecallGuild, *, summaries_per_day: int = 20, sql: bool = True
) -> int:
    """Store the guild, its members, all its messages and its day summaries; VACUUM ANALYZE as
    autovacuum would on a live server. Returns how many messages were stored. `sql`: generate
    the chat inside PostgreSQL (fast) instead of in Python through COPY."""
    await ensure_guilds(pool, [(guild.guild_id, f"recall bench {guild.guild_id}")])
    await upsert_members(pool, guild.members())
    stored = 0
    records = guild.records()
    async with pool.acquire() as connection:
        if sql:
            stored = await _fill_sql(connection, guild)
        while not sql and (batch := list(itertools.islice(records, COPY_CHUNK))):
            await connection.copy_records_to_table("messages", records=batch, columns=COLUMNS)
            stored += len(batch)
        await connection.execute(
            """
            INSERT INTO summary_days (guild_id, day, message_count, provider)
            SELECT $1, d::date, 0, 'bench' FROM generate_series($2::date, $3::date, '1 day') d
            """,
            guild.guild_id,
            (NOW - timedelta(days=guild.days - 1)).date(),
            NOW.date(),
        )
        await connection.copy_records_to_table(
            "daily_summaries",
            records=guild.summary_records(summaries_per_day),
            columns=("guild_id", "day", "user_id", "summary"),
        )
        await connection.execute("VACUUM ANALYZE messages")
        await connection.execute("VACUUM ANALYZE daily_summaries")
    return stored
