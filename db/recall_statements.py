"""A named member's most informative statements, for the recall search's member lane.

"What is Sam into these days?" shares no word with "finally ran my first ten
kilometres, legs are gone"; what finds it is that it is one of the few things Sam said that carries
news. A statement's information is how rare its words are in the guild (`recall_terms`, the
counts the rarity ranking already keeps): a word said in FLOOR_SHARE of the guild's messages
or more (at least FLOOR_DOCS) counts nothing ("the weather is awful again", "I need coffee"), a
rarer word counts its inverse document frequency above that floor, so a line holding a named
thing or an unusual word ranks first. A first-person statement ("I", "my", "we"...) counts
half as much again; the question's own words still count as in the main search, so among a
member's statements the ones about what was asked come first.

One statement, one round trip: the member's newest MEMBER_SCAN messages (the author index,
newest first), of which the lines of MIN_LEXEMES words or more without links or code are
scored. Their distinct words are looked up in the rarity counts once (`rare`, one map, its own
MATERIALIZED step: inlined, a generic plan rebuilt it for every line), and each line is scored
once from it, not again for its rank: a member's lines repeat their words, and the look-ups are
the lane's cost (tests/db/test_query_plans.py). Each look-up is a subquery of its own
(`counted`), so it is always by the whole key (guild, word). As a join, statistics taken
before a guild grew let the planner read all of the guild's words for each word (1,852 words
x 10,083 rows: 3 s on the recall bench's busy guild, past the search's time limit). The
filters are the message lane's (readable channels, the message being answered, messages to or
from the bot, deleted messages); forgotten statements are dropped after, as for every lane.
"""

from __future__ import annotations

from collections.abc import Sequence

from db.recall import Exclusions, MessageMatch, Scope, Weighted, lexeme_query
from db.rows import fetch_as
from db.types import Executor
from memory.language import FIRST_PERSON_ANY, place_pattern

# How many of the member's newest messages are read for statements (a bound on the cost:
# a member with fewer is read whole).
MEMBER_SCAN = 500
# Shorter lines are reactions ("lol", "same here"), not statements.
MIN_LEXEMES = 4
# Longer ones are pastes, not statements about oneself.
MAX_LEXEMES = 80
# Shorter words are never rare enough to count (and each would cost a look-up).
MIN_LETTERS = 3
# A word in more than this share of the guild's messages carries no information.
FLOOR_SHARE = 0.01
# In a small guild: a word in this many messages or more carries none either.
FLOOR_DOCS = 3
FIRST_PERSON_FACTOR = 1.5
# The first person (memory.language), as whole words (PostgreSQL's \m \M word boundaries).
FIRST_PERSON = r"\m(" + "|".join(FIRST_PERSON_ANY) + r")\M"
# When the question asks where the member has been, the lines naming a place ("took this pic
# in Peru", memory.language.names_a_place) come first.
PLACE = place_pattern(r"\m", r"\M")

_STATEMENTS = f"""
    WITH g AS (
        SELECT total, common, ln(1 + (total - common + 0.5) / (common + 0.5)) AS floor
        FROM (SELECT total, greatest(total * {FLOOR_SHARE}, {FLOOR_DOCS}) AS common
              FROM (SELECT greatest(coalesce((SELECT docs FROM recall_terms
                                              WHERE guild_id = $1 AND term = ''), 0), 1)::float8
                           AS total) n) c
    ),
    scanned AS MATERIALIZED (
        SELECT m.message_id, m.channel_id, m.author_id, m.created_at, m.content,
               m.reply_to_id, m.search
        FROM (SELECT * FROM messages
              WHERE guild_id = $1 AND author_id = $2
              ORDER BY created_at DESC
              LIMIT {MEMBER_SCAN}) m
        WHERE NOT m.deleted
          AND length(m.search) BETWEEN {MIN_LEXEMES} AND {MAX_LEXEMES}
          AND m.content !~* '(https?://|```)'
          AND ($3::bigint[] IS NULL OR m.channel_id = ANY($3))
          AND m.message_id <> ALL($4::bigint[])
          AND ($5::bigint IS NULL OR (m.author_id <> $5 AND NOT $5 = ANY(m.mention_ids)))
          AND ($6::text IS NULL OR m.content !~* $6)
    ),
    counted AS MATERIALIZED (
        SELECT w.lexeme,
               (SELECT docs FROM recall_terms WHERE guild_id = $1 AND term = w.lexeme) AS docs
        FROM (SELECT DISTINCT w.lexeme
              FROM scanned s, unnest(s.search) AS w(lexeme, positions, weights)
              WHERE char_length(w.lexeme) >= {MIN_LETTERS} AND w.lexeme !~ '[0-9/.:_@#]') w
    ),
    rare AS MATERIALIZED (
        SELECT jsonb_object_agg(d.lexeme,
                                ln(1 + (g.total - d.docs + 0.5) / (d.docs + 0.5)) - g.floor) AS info
        FROM counted d, g
        WHERE d.docs < g.common
    ),
    mine AS MATERIALIZED (
        SELECT s.*, (SELECT sum((rare.info ->> w.lexeme)::float8)
                     FROM unnest(s.search) AS w(lexeme, positions, weights)) AS info
        FROM scanned s, rare
    )
    SELECT message_id, channel_id, author_id, created_at, content, reply_to_id,
           info * CASE WHEN content ~* $11 THEN {FIRST_PERSON_FACTOR} ELSE 1 END
           + (SELECT coalesce(sum(CASE WHEN search @@ t.q THEN t.w
                                       WHEN t.pw IS NOT NULL AND search @@ t.pq THEN t.pw
                                       ELSE 0 END), 0)
              FROM unnest($7::tsquery[], $8::float8[], $9::tsquery[], $10::float8[])
                   AS t(q, w, pq, pw)) AS rank
    FROM mine
    WHERE info > 0
    ORDER BY coalesce(content ~ $13, false) DESC, rank DESC, created_at DESC
    LIMIT $12
"""


async def member_statements(
    db: Executor,
    scope: Scope,
    member_id: int,
    terms: Sequence[Weighted],
    *,
    exclude: Exclusions,
    limit: int,
    places: bool = False,
) -> list[MessageMatch]:
    """`member_id`'s most informative statements in the scope's channels, best first (rank:
    their information, plus the weights of the question's `terms` they hold); with `places`,
    the lines naming a place first."""
    return await fetch_as(
        db,
        MessageMatch,
        _STATEMENTS,
        scope.guild_id,
        member_id,
        None if scope.channel_ids is None else sorted(scope.channel_ids),
        *exclude.arguments(),
        [lexeme_query(t.lexeme) for t in terms],
        [t.weight for t in terms],
        [lexeme_query(t.lexeme, prefix=True) for t in terms],
        [t.prefix_weight for t in terms],
        FIRST_PERSON,
        limit,
        PLACE if places else None,
    )
