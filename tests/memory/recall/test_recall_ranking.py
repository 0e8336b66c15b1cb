"""Recall ranking on crafted data (real PostgreSQL): rare words beat common ones, whole words
beat prefixes, a named member is a boost not a word, recency only breaks ties, day summaries
never push the message out, and nothing leaves the viewer's channels, even when it would
rank first."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg

from db.members import upsert_members
from db.messages import apply_edits, insert_messages, mark_deleted
from db.summaries import save_day
from memory.core.clock import FixedClock
from memory.core.models import ChatMessage, Member
from memory.core.viewer import Viewer
from memory.recall import RecallService
from tests.support import chat_message, said_order

G = 920
MELANIE, CAROLINE, JUDY, KIM = 21, 22, 23, 24
GENERAL, MODS = 500, 501
DAY = datetime(2023, 5, 8, 14, 5, tzinfo=UTC)  # a Monday


def _said(
    author: int, text: str, *, days_ago: float = 0, channel: int = GENERAL, **extra: Any
) -> ChatMessage:
    return chat_message(
        None,
        text,
        guild_id=G,
        channel_id=channel,
        author_id=author,
        created_at=DAY - timedelta(days=days_ago),
        **extra,
    )


async def _members(db_pool: asyncpg.Pool) -> None:
    await upsert_members(
        db_pool,
        [
            Member(G, MELANIE, username="melanie"),
            Member(G, CAROLINE, username="caroline"),
            Member(G, JUDY, username="judy"),
            Member(G, KIM, username="kim"),
        ],
    )


async def _summaries(db_pool: asyncpg.Pool, per_day: dict[date, dict[int, str]]) -> None:
    async with db_pool.acquire() as connection:
        for day, summaries in per_day.items():
            await save_day(
                connection,
                G,
                day,
                message_count=1,
                max_message_id=None,
                provider="test",
                summaries=summaries,
            )


async def test_the_museum_message_beats_summaries_full_of_a_common_name(
    db_pool: asyncpg.Pool,
) -> None:
    """The issue's example: ten day summaries say "Melanie" and "good"/"going"; the one
    message saying "museum" is the first hit, and summaries stay in their own lane."""
    await _members(db_pool)
    chatter = [
        _said(MELANIE, f"good morning, going to work again {n}", days_ago=n + 1) for n in range(30)
    ]
    answer = _said(MELANIE, "Yesterday I took the kids to the museum", days_ago=60)
    await insert_messages(db_pool, [*chatter, answer])
    await _summaries(
        db_pool,
        {
            (DAY - timedelta(days=n)).date(): {
                MELANIE: f"Melanie was in a good mood, going on about Melanie's plans {n}.",
                CAROLINE: "Caroline told Melanie that going out was good.",
            }
            for n in range(1, 11)
        },
    )
    hits = await RecallService(db_pool).search(G, "When did Melanie go to the museum?", limit=5)
    assert hits[0].text == "Yesterday I took the kids to the museum"
    assert hits[0].author_name == "melanie" and hits[0].day_label == "Thu 9 March 2023"
    assert hits[0].dates == ("yesterday = Wed 8 March 2023",)
    assert [hit.kind for hit in hits] == sorted((hit.kind for hit in hits), key="message".__ne__)


async def test_a_rare_word_outweighs_a_common_one(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    common = [_said(KIM, f"the weather was nice today {n}", days_ago=n) for n in range(20)]
    rare = _said(JUDY, "the weather at the lighthouse was awful", days_ago=40)
    several = _said(KIM, "weather weather weather, nice nice nice", days_ago=0.5)
    await insert_messages(db_pool, [*common, rare, several])
    hits = await RecallService(db_pool).search(G, "nice weather at the lighthouse?", limit=3)
    assert hits[0].text == "the weather at the lighthouse was awful"


async def test_whole_words_before_prefixes_and_no_prefix_for_short_words(
    db_pool: asyncpg.Pool,
) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        [
            _said(KIM, "the climbing wall downtown reopened", days_ago=1),
            _said(JUDY, "I love to climb in the rain", days_ago=30),
            _said(KIM, "the article about history was long", days_ago=2),
            _said(JUDY, "that art show was great", days_ago=20),
        ],
    )
    service = RecallService(db_pool)
    climb = await service.search(G, "who likes to climb?", limit=5)
    assert [hit.text for hit in climb] == [
        "I love to climb in the rain",  # the word itself, although older
        "the climbing wall downtown reopened",  # a word it prefixes, after it
    ]
    art = await service.search(G, "the art show?", limit=5)
    assert [hit.text for hit in art] == ["that art show was great"]  # "art" never finds "article"


async def test_a_named_member_is_a_boost_not_a_word_and_recency_only_breaks_ties(
    db_pool: asyncpg.Pool,
) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        [
            _said(KIM, "melanie melanie melanie, where is the ferry?", days_ago=1),
            _said(MELANIE, "the ferry to the island leaves at nine", days_ago=50),
            _said(JUDY, "ferry tickets are sold out", days_ago=10),
            _said(JUDY, "ferry tickets are all gone", days_ago=5),  # as long: the same score
        ],
    )
    hits = await RecallService(db_pool).search(G, "what did Melanie say about the ferry?", limit=5)
    assert hits[0].text == "the ferry to the island leaves at nine"
    judy = [hit for hit in hits if hit.author_id == JUDY]
    assert [hit.day for hit in judy] == ["2023-05-03", "2023-04-28"]  # equal scores: newest first


async def test_a_word_no_message_holds_does_not_lift_what_was_said_then(
    db_pool: asyncpg.Pool,
) -> None:
    """A line said when the question asks about counts as if it held the question's rarest
    word once more: the rarest word some message holds. "glorpish" (a typo, a word nobody
    said) is rarer than any, and as that boost it put the chatter of that day on a common word
    above the one line holding what was asked."""
    await _members(db_pool)
    chatter = [_said(KIM, f"fireworks tonight at {n}", days_ago=n + 3) for n in range(8)]
    asked = _said(JUDY, "the lighthouse fireworks were lovely", days_ago=30)
    that_day = _said(MELANIE, "fireworks are loud", days_ago=1)  # 7 May
    await insert_messages(db_pool, [*chatter, asked, that_day])
    recall = RecallService(db_pool, clock=FixedClock(DAY))
    question = "what was said about the lighthouse fireworks glorpish on 7 May?"
    hits = await recall.search(G, question, limit=3)
    assert [hit.text for hit in hits[:2]] == [asked.content, that_day.content]


async def test_summaries_keep_their_own_lane(db_pool: asyncpg.Pool) -> None:
    """Seven summaries say "kiwiberry jam" more often than any message: the messages still
    take the first slots, summaries get theirs (a quarter, at least one) after them, and a lane
    with too few hits leaves its slots to the other."""
    await _members(db_pool)
    said = [_said(JUDY, f"the kiwiberry jam was too sweet {n}", days_ago=3 + n) for n in range(5)]
    await insert_messages(db_pool, said)
    await _summaries(
        db_pool,
        {
            (DAY - timedelta(days=n)).date(): {
                JUDY: f"Judy talked about kiwiberry jam, kiwiberry jam again {n}."
            }
            for n in range(1, 8)
        },
    )
    service = RecallService(db_pool)
    hits = await service.search(G, "kiwiberry jam", limit=4)
    assert [hit.kind for hit in hits] == ["message", "message", "message", "summary"]
    assert hits[0].text.startswith("the kiwiberry jam")
    wide = await service.search(G, "kiwiberry jam", limit=12, summaries=2)
    assert [hit.kind for hit in wide] == ["message"] * 5 + ["summary"] * 7


async def test_a_restricted_channel_never_reaches_a_viewer_without_it(
    db_pool: asyncpg.Pool,
) -> None:
    """Twenty #mods lines would rank above the one public line: the viewer's filter is in the
    query, before the limit, so the public line is still found and no #mods line is."""
    await _members(db_pool)
    mods = [
        _said(KIM, f"zorvath alt account zorvath banned {n}", days_ago=n, channel=MODS)
        for n in range(20)
    ]
    public = _said(JUDY, "someone called zorvath joined today", days_ago=30)
    await insert_messages(db_pool, [*mods, public])
    member = Viewer.of_channels(JUDY, {GENERAL})
    hits = await RecallService(db_pool).search(G, "zorvath alt banned", limit=5, viewer=member)
    assert [hit.text for hit in hits] == ["someone called zorvath joined today"]
    moderator = Viewer.of_channels(KIM, {GENERAL, MODS})
    seen = await RecallService(db_pool).search(G, "zorvath alt banned", limit=5, viewer=moderator)
    assert seen and all(hit.channel_id == MODS for hit in seen)


async def test_forgotten_statements_are_never_recalled_for_anyone(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        [
            _said(JUDY, "I am a nurse, the night shifts are brutal", days_ago=20),
            _said(JUDY, "the night shifts at the bakery start at four", days_ago=10),
        ],
    )
    await _summaries(
        db_pool,
        {(DAY - timedelta(days=20)).date(): {JUDY: "Judy is a nurse. Judy works night shifts."}},
    )
    await db_pool.execute(
        "INSERT INTO forgotten_statements (guild_id, user_id, statement) VALUES ($1, $2, $3)",
        G,
        JUDY,
        "Judy is a nurse",
    )
    # kim asks, not judy: the filter holds whoever asks, in messages and in summaries.
    hits = await RecallService(db_pool).search(
        G, "what did judy say about the night shifts?", viewer=Viewer.of_channels(KIM, {GENERAL})
    )
    assert hits and all("nurse" not in hit.text for hit in hits)
    assert "Judy works night shifts." in [hit.text for hit in hits if hit.kind == "summary"]


async def test_a_short_answer_comes_with_the_lines_around_it(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    question = _said(CAROLINE, "did you like the pottery workshop?", days_ago=2)
    answer = _said(
        MELANIE,
        "loved the pottery, going back on Saturday",
        days_ago=2 - 1 / 1440,
        reply_to_id=question.message_id,
    )
    after = _said(CAROLINE, "nice!", days_ago=2 - 2 / 1440)
    far = _said(KIM, "unrelated, much later", days_ago=1)
    await insert_messages(db_pool, [question, answer, after, far])
    hits = await RecallService(db_pool).search(G, "pottery", limit=5)
    # The question and its answer both match: one exchange, each line once, in said order.
    assert len(hits) == 1
    lines = sorted([hits[0], *hits[0].context], key=said_order)
    assert [line.text for line in lines] == [
        "did you like the pottery workshop?",
        "loved the pottery, going back on Saturday",
        "nice!",
    ]
    assert lines[1].dates == ("on saturday = Sat 29 April 2023 (past) or Sat 13 May 2023 (coming)",)


async def test_word_counts_follow_inserts_edits_deletes_and_retention(
    db_pool: asyncpg.Pool,
) -> None:
    """`recall_terms` (what rarity is computed from) always equals a recount of the messages,
    and a word no message says any more has no row."""
    first = _said(KIM, "the lighthouse keeper waved", days_ago=3)
    second = _said(JUDY, "lighthouse tours start at nine", days_ago=2)
    third = _said(KIM, "zorblax is my secret word", days_ago=1)
    await insert_messages(db_pool, [first, second, third])
    await apply_edits(db_pool, [replace(second, content="boat tours start at ten", edited_at=DAY)])
    await mark_deleted(db_pool, third.guild_id, [third.message_id])
    await db_pool.execute("DELETE FROM messages WHERE message_id = $1", first.message_id)
    counted = await db_pool.fetch(
        "SELECT term, docs FROM recall_terms WHERE guild_id = $1 ORDER BY term", G
    )
    recount = await db_pool.fetch(
        """
        SELECT term, count(*)::int AS docs FROM (
            SELECT unnest(tsvector_to_array(search)) AS term FROM messages WHERE guild_id = $1
            UNION ALL SELECT '' FROM messages WHERE guild_id = $1 AND length(search) > 0) w
        GROUP BY term ORDER BY term
        """,
        G,
    )
    assert [tuple(r) for r in counted] == [tuple(r) for r in recount]
    assert ("boat", 1) in [tuple(r) for r in counted]
    assert not any(r["term"] in ("zorblax", "lighthouse", "keeper") for r in counted)


async def test_a_line_said_on_many_days_is_one_hit(db_pool: asyncpg.Pool) -> None:
    await _members(db_pool)
    await insert_messages(
        db_pool,
        [
            *[_said(JUDY, "Ferry was late again", days_ago=2 + n) for n in range(6)],
            _said(MELANIE, "the ferry to the island leaves at nine", days_ago=30),
        ],
    )
    hits = await RecallService(db_pool).search(G, "what about the ferry?", limit=3, summaries=0)
    assert [hit.text for hit in hits] == [
        "Ferry was late again",
        "the ferry to the island leaves at nine",
    ]
    assert hits[0].day == (DAY - timedelta(days=2)).date().isoformat(), "the newest of them"
