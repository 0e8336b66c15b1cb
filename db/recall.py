"""Recall search queries: a guild's messages and day summaries ranked by the rarity of the
question's words, in PostgreSQL.

A search is three short statements on one connection, inside a read-only transaction with a
statement timeout, so no question can hold the database or the event loop:

1. `term_stats`: each question word as the guild's configuration makes it a lexeme, with how
   many of the guild's messages hold it exactly and as a prefix (`recall_terms`, V015, kept by
   triggers), and the guild's message count.
2. `search_messages`: candidates are the rows holding the question's rarest words (a bounded
   posting list, found by the GIN index); each is scored by the weights the caller computed
   from those counts (whole word, else prefix, BM25-style length normalisation), plus a boost
   when a member named in the question wrote it or is mentioned in it; recency breaks ties.
   The guild, the viewer's channels, the message being answered, messages addressed to the
   bot and the bot's own are filtered here, before any limit.
3. `search_summaries`: the same scoring over day summaries, a lane of its own.

Only one guild is ever searched, with the guild's text search configuration
(`guilds.search_config`, 'simple' by default), the one its vectors were made with (V011).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime

import asyncpg

from db.rows import fetch_as
from db.types import Connection, Executor

# The guild's configuration as a query-time constant (no row lock: readers never wait).
GUILD_CONFIG = "coalesce((SELECT search_config FROM guilds WHERE guild_id = $1), 'simple')"

# One search's statements may take this long each in PostgreSQL before they are cancelled.
STATEMENT_TIMEOUT_MS = 1500
# Rows a lane scores at most (the candidate scan stops there).
CANDIDATE_CAP = 3000
# How many distinct prefixes of one lexeme are summed for its prefix count.
PREFIX_TERMS_CAP = 2000


@dataclass(frozen=True, slots=True)
class MessageMatch:
    message_id: int
    channel_id: int
    author_id: int
    created_at: datetime
    content: str
    rank: float
    reply_to_id: int | None = None


@dataclass(frozen=True, slots=True)
class SummaryMatch:
    day: date
    user_id: int
    summary: str
    rank: float


@dataclass(frozen=True, slots=True)
class TermStat:
    """A question word as the guild indexes it, and how many messages hold it."""

    word: str
    lexeme: str
    exact: int  # messages holding the lexeme itself
    prefixed: int | None  # messages holding a word it prefixes (None: too short to prefix)


@dataclass(frozen=True, slots=True)
class Weighted:
    """A term as a search scores it: `weight` for the whole word, `prefix_weight` for a word it
    only prefixes (None: whole words only)."""

    lexeme: str
    weight: float
    prefix_weight: float | None = None


@dataclass(frozen=True, slots=True)
class Exclusions:
    """What a search never returns, whoever asks."""

    message_ids: tuple[int, ...] = ()  # the message being answered
    bot_id: int | None = None  # the bot's own messages, and messages mentioning it
    bot_pattern: str | None = None  # messages addressed to the bot by name (a regex)

    def arguments(self) -> tuple[list[int], int | None, str | None]:
        """The three parameters every search's SQL takes for them, in this order."""
        return list(self.message_ids), self.bot_id, self.bot_pattern


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a search looks: one guild, the viewer's channels (None: all), one member's rows."""

    guild_id: int
    channel_ids: frozenset[int] | None = None
    user_id: int | None = None
    named: tuple[int, ...] = ()  # members named in the question: a boost, not a word
    boost: float = 0.0
    names: str | None = None  # a tsquery of their names: a row saying one is boosted too
    # [from, to) of the time a question asks about: a message said then ranks `period_boost`
    # higher.
    period: tuple[datetime, datetime] | None = None
    period_boost: float = 0.0


@asynccontextmanager
async def search_session(
    pool: asyncpg.Pool, timeout_ms: int = STATEMENT_TIMEOUT_MS, *, custom_plans: bool = False
) -> AsyncIterator[Connection]:
    """One connection in a read-only transaction whose statements PostgreSQL cancels past
    `timeout_ms` (asyncpg.QueryCanceledError); with `custom_plans`, each planned for its own
    arguments.

    Why custom plans: asyncpg prepares every statement once per connection, and after five runs
    PostgreSQL may keep a generic plan, blind to the arguments. For the exchange read
    (db/recall_exchange.py) that plan took 200-280 ms where the plan for the arguments takes
    1-2 ms, on the recall bench's 200,000-message guild: most of a search's time. Not for the
    lanes: their generic plans hold, and planning them anew on every search cost 3-5 ms a
    search on the 1M-message guild."""
    plans = " SET LOCAL plan_cache_mode = force_custom_plan;" if custom_plans else ""
    async with pool.acquire() as connection, connection.transaction(readonly=True):
        await connection.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)};{plans}")
        yield connection


_TERM_STATS = f"""
    WITH lx AS (
        SELECT w.ord, w.word,
               (tsvector_to_array(to_tsvector(c.config, w.word)))[1] AS lexeme
        FROM unnest($2::text[]) WITH ORDINALITY AS w(word, ord),
             (SELECT {GUILD_CONFIG} AS config) c
    )
    SELECT lx.word, lx.lexeme,
           coalesce((SELECT docs FROM recall_terms
                     WHERE guild_id = $1 AND term = lx.lexeme), 0) AS exact,
           CASE WHEN char_length(lx.lexeme) >= $3 THEN
               (SELECT coalesce(sum(docs), 0) FROM (
                    SELECT docs FROM recall_terms
                    WHERE guild_id = $1 AND term >= lx.lexeme
                      AND term < lx.lexeme || chr(1114111)
                    LIMIT {PREFIX_TERMS_CAP}) p)
           END AS prefixed
    FROM lx WHERE lx.lexeme IS NOT NULL
    ORDER BY lx.ord
"""


async def term_stats(
    db: Executor, guild_id: int, words: Sequence[str], *, min_prefix: int
) -> tuple[list[TermStat], int]:
    """The words' lexemes and document counts (words the configuration drops are left out),
    and how many searchable messages the guild has."""
    rows = await db.fetch(_TERM_STATS, guild_id, list(words), min_prefix)
    total = await db.fetchval(
        "SELECT docs FROM recall_terms WHERE guild_id = $1 AND term = ''", guild_id
    )
    stats: dict[str, TermStat] = {}
    for row in rows:
        prefixed = None if row["prefixed"] is None else int(row["prefixed"])
        stats.setdefault(
            row["lexeme"], TermStat(row["word"], row["lexeme"], int(row["exact"]), prefixed)
        )
    return list(stats.values()), int(total or 0)


def lexeme_query(lexeme: str, *, prefix: bool = False) -> str:
    """A lexeme as a tsquery literal (quoted, so no user text is tsquery syntax)."""
    quoted = "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"
    return quoted + ":*" if prefix else quoted


# Per row: the sum of its terms' weights (whole word, else prefix), scaled by its length as BM25
# does with a term frequency of one (k1 = 1.2, b = 0.75 around `avg` lexemes), plus the boost
# when a member named in the question wrote it (or, for messages, is mentioned in it), half of
# it when the row only says their name.
_SCORE = """
    ((SELECT coalesce(sum(CASE WHEN {v} @@ t.q THEN t.w
                               WHEN t.pw IS NOT NULL AND {v} @@ t.pq THEN t.pw
                               ELSE 0 END), 0)
      FROM unnest($4::tsquery[], $5::float8[], $6::tsquery[], $7::float8[]) AS t(q, w, pq, pw))
     * 2.2 / (1 + 1.2 * (0.25 + 0.75 * length({v}) / {avg}.0))
     + CASE WHEN {named} THEN $9 WHEN {said} THEN $9 / 2 ELSE 0 END)
"""
# The newest rows of the first named member, read by the author index (`authored=True`): when
# a question's words are so common that the candidate cap cuts their rows, the named member's
# own are still all scored ("what did bob say about Berlin?").
AUTHORED_SCAN = 20_000
_AUTHORED = f"""(
    SELECT * FROM messages
    WHERE guild_id = $1 AND author_id = ($8::bigint[])[1]
    ORDER BY created_at DESC LIMIT {AUTHORED_SCAN}) m"""
_MESSAGES_TEMPLATE = """
    WITH c AS (
        SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
               m.reply_to_id, m.search, m.mention_ids
        FROM {rows}
        WHERE m.guild_id = $1 AND m.search @@ ANY($3::tsquery[]) AND NOT m.deleted
          AND ($2::bigint[] IS NULL OR m.channel_id = ANY($2))
          AND ($10::bigint IS NULL OR m.author_id = $10 OR $10 = ANY(m.mention_ids))
          AND m.message_id <> ALL($11::bigint[])
          AND ($12::bigint IS NULL OR (m.author_id <> $12 AND NOT $12 = ANY(m.mention_ids)))
          AND ($13::text IS NULL OR m.content !~* $13)
        LIMIT {cap}
    )
    SELECT message_id, channel_id, author_id, created_at, content, reply_to_id,
           {score} + CASE WHEN created_at >= $16 AND created_at < $17 THEN $18::float8 ELSE 0 END
               AS rank
    FROM c
    ORDER BY rank DESC, created_at DESC
    LIMIT $14
"""
_MESSAGE_SCORE = _SCORE.format(
    v="c.search",
    avg=12,
    named="(c.author_id = ANY($8::bigint[]) OR c.mention_ids && $8::bigint[])",
    said="($15::tsquery IS NOT NULL AND c.search @@ $15::tsquery)",
)
_MESSAGES = _MESSAGES_TEMPLATE.format(rows="messages m", cap=CANDIDATE_CAP, score=_MESSAGE_SCORE)
_MESSAGES_AUTHORED = _MESSAGES_TEMPLATE.format(
    rows=_AUTHORED, cap=AUTHORED_SCAN, score=_MESSAGE_SCORE
)
_SAID = "($11::tsquery IS NOT NULL AND c.search @@ $11::tsquery)"
_SUMMARIES = f"""
    WITH c AS (
        SELECT s.day, s.user_id, s.summary, s.search
        FROM daily_summaries s
        WHERE s.guild_id = $1 AND s.search @@ ANY($3::tsquery[])
          AND ($2::bigint IS NULL OR s.user_id = $2)
        LIMIT {CANDIDATE_CAP}
    )
    SELECT day, user_id, summary,
           {_SCORE.format(v="c.search", avg=40, named="c.user_id = ANY($8::bigint[])", said=_SAID)}
               AS rank
    FROM c
    ORDER BY rank DESC, day DESC
    LIMIT $10
"""


def _term_args(terms: Sequence[Weighted]) -> list[list[object]]:
    return [
        [lexeme_query(t.lexeme) for t in terms],
        [t.weight for t in terms],
        [lexeme_query(t.lexeme, prefix=True) for t in terms],
        [t.prefix_weight for t in terms],
    ]


async def search_messages(
    db: Executor,
    scope: Scope,
    candidates: Sequence[str],
    terms: Sequence[Weighted],
    *,
    exclude: Exclusions,
    limit: int,
    authored: bool = False,
) -> list[MessageMatch]:
    """The guild's messages matching any of the `candidates` tsqueries, best score first (see
    _SCORE), only from the scope's channels and member, never what `exclude` names; with
    `authored`, among the first named member's newest AUTHORED_SCAN messages only."""
    if authored and not scope.named:
        return []
    return await fetch_as(
        db,
        MessageMatch,
        _MESSAGES_AUTHORED if authored else _MESSAGES,
        scope.guild_id,
        None if scope.channel_ids is None else sorted(scope.channel_ids),
        list(candidates),
        *_term_args(terms),
        list(scope.named),
        scope.boost,
        scope.user_id,
        *exclude.arguments(),
        limit,
        scope.names,
        *(scope.period or (None, None)),
        scope.period_boost,
    )


async def search_summaries(
    db: Executor, scope: Scope, candidates: Sequence[str], terms: Sequence[Weighted], *, limit: int
) -> list[SummaryMatch]:
    """The guild's day summaries matching `candidates`, best score first (a lane of their
    own: they never push a message out)."""
    return await fetch_as(
        db,
        SummaryMatch,
        _SUMMARIES,
        scope.guild_id,
        scope.user_id,
        list(candidates),
        *_term_args(terms),
        list(scope.named),
        scope.boost,
        limit,
        scope.names,
    )
