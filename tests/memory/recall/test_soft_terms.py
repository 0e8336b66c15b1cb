"""The second opinion on a search's best matches (memory/recall/_soft_terms.py), with the real
token vectors of the `wordllama` wheel: a message holding a word near the question's ("Spain"
for "European countries") rises among matches that share only the question's plain word."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import numpy as np
import pytest

from db.recall import MessageMatch
from memory.core.clock import FixedClock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm.embeddings._local import LocalEmbeddings
from memory.recall import _soft_terms as soft_terms
from memory.recall._soft_terms import SoftTerms, searchable_tokens, soft_scores
from memory.wiring import open_memory
from tests.support import chat_message

G, MARIA = 982, 41
NOW = datetime(2026, 11, 7, 12, tzinfo=UTC)
QUESTION = "which european countries did she see on her trip?"
ANSWER = "last year I took a solo trip and took this pic in spain"
# Each shares the question's one plain word and says nothing of where.
CHATTER = [
    "the trip to the store took forever, long queue",
    "my trip got delayed, the bus was late again",
    "the trip home was fine",
    "what a trip that party was lol",
    "packing for the trip tomorrow, so tired",
    "the school trip permission slip is due friday",
    "that road trip playlist was great",
    "our trip to the dentist went ok",
    "first trip with the new car, smooth ride",
    "the trip planner app keeps crashing",
    "a quick trip to the bakery for bread",
    "the field trip got cancelled because of rain",
]


@pytest.fixture(scope="module")
def local() -> LocalEmbeddings:
    loaded = LocalEmbeddings()
    loaded.encode(["load the table"])
    return loaded


def _matches(texts: Sequence[str]) -> list[MessageMatch]:
    return [
        MessageMatch(number, 1, MARIA, NOW - timedelta(minutes=number), text, rank=1.0)
        for number, text in enumerate(texts, start=1)
    ]


def test_a_word_near_the_questions_scores_above_the_plain_shared_word(
    local: LocalEmbeddings,
) -> None:
    table = local.token_table()
    assert table is not None
    searchable = searchable_tokens(table.pieces)
    question, *texts = table.token_ids([QUESTION, ANSWER, *CHATTER])
    scores = soft_scores(table, searchable, question, texts)
    assert scores[0] == max(scores) and scores[0] > sorted(scores)[-2]
    # A question of stop words only asks nothing to match; a text of none matches nothing.
    [nothing] = table.token_ids(["what did she do?"])
    assert soft_scores(table, searchable, nothing, texts) == [0.0] * len(texts)
    [empty] = table.token_ids([""])
    assert soft_scores(table, searchable, question, [empty, texts[0]])[0] == 0.0


async def test_the_near_match_rises_from_last_into_the_first_half(local: LocalEmbeddings) -> None:
    """Fused with the lanes' order, not instead of it: a match they put last rises, one they
    put first stays near the top."""
    matches = _matches([*CHATTER, ANSWER])
    reranked = await SoftTerms(local.token_table).reranked(QUESTION, matches)
    assert sorted(m.message_id for m in reranked) == [m.message_id for m in matches]
    assert [m.content for m in reranked].index(ANSWER) <= len(matches) // 2
    assert [m.content for m in reranked].index(CHATTER[0]) < 2


class _BrokenTable:
    @property
    def pieces(self) -> Sequence[str]:
        return ("hello",)

    def token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        raise RuntimeError("the tokenizer file is corrupt")

    def unit_vectors(self, ids: np.ndarray) -> np.ndarray:
        raise AssertionError("never reached")


async def test_without_the_table_or_when_it_fails_the_order_stands() -> None:
    matches = _matches([*CHATTER, ANSWER])
    assert await SoftTerms(lambda: None).reranked(QUESTION, matches) == matches
    assert await SoftTerms(lambda: _BrokenTable()).reranked(QUESTION, matches) == matches


async def test_a_search_in_the_default_install_lifts_the_near_match(
    db_pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the wiring: the local embedder's vectors rank the search's matches again, the
    second opinion readied when the table loaded (its first search reads no vocabulary)."""
    settings = Settings(_env_file=None, log_dir=tmp_path / "logs")
    async with open_memory(
        settings, clock=FixedClock(NOW), pool=db_pool, telemetry=Telemetry()
    ) as memory:
        # A day apart, each its own exchange; the answer is the oldest, and full text, whose
        # words tie, puts it last.
        for number, text in enumerate([ANSWER, *CHATTER], start=1):
            at = NOW - timedelta(days=30 - number)
            message = chat_message(number, text, guild_id=G, author_id=MARIA, created_at=at)
            assert memory.writer.submit(message)
        await memory.writer.flush()
        await memory.embeddings.settled()

        def read_on_the_search_path(pieces: object) -> None:
            raise AssertionError("the vocabulary was read on a search's path")

        monkeypatch.setattr(soft_terms, "searchable_tokens", read_on_the_search_path)
        hits = await memory.recall.search(G, QUESTION, limit=len(CHATTER) + 1)
    # Without the second opinion it comes eleventh of thirteen.
    assert [hit.text for hit in hits].index(ANSWER) <= len(hits) // 2
