"""A second opinion on the best matches: which of them hold the question's words, or words near
them in meaning, one word at a time.

The lanes rank by shared words (full text) and by a whole message's averaged vector (the
nearest in meaning). Averaging drowns a message's one telling word in the rest: "Last year I
took a solo trip and took this pic in Spain" is far from "which European countries has she
been to?" as a whole, though "Spain" is near "European countries". So the best matches
(RERANK_DEPTH) are ranked again by how near each question word comes to any word of the
message (its best cosine, the local model's token vectors), weighted by how rare that
question word is among them, and that order is fused with theirs by reciprocal rank: a match
both rank well comes first. On LoCoMo-dev (docs/performance.md, "locomo") it brought
single-hop and multi-hop evidence the words alone did not (word-for-word matches alone,
instead of nearest ones, brought nothing: the nearness is what finds them).

The vectors are the local embedder's (none with an API's, or before the table is loaded: the
order then stays as it is). A few milliseconds of numpy per search, off the event loop; what is
needed once is readied in the thread that loads the table (`prepare`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from db.recall import MessageMatch
from memory.language import SEARCH_STOP_WORDS
from memory.llm import TokenTable
from memory.recall._hybrid import fuse

_log = logging.getLogger(__name__)

# Matches ranked again: past these the lanes' order stands (and so does the cost).
RERANK_DEPTH = 60

# Characters of a match read: its start says what it is about; a paste's tail would only cost.
TEXT_CHARS = 400
# A token's cosine to itself (any other token's is below).
EXACT = 0.9999

TokenTableSource = Callable[[], TokenTable | None]


def searchable_tokens(pieces: Sequence[str]) -> np.ndarray:
    """By token id: whether the token can say what a text is about (no stop word, no letter
    alone). Computed once per table."""
    return np.array([len(p) > 1 and p not in SEARCH_STOP_WORDS for p in pieces], dtype=bool)


def soft_scores(
    table: TokenTable, searchable: np.ndarray, question: np.ndarray, texts: Sequence[np.ndarray]
) -> list[float]:
    """Per text (its token ids): the sum over the question's distinct searchable tokens of
    their nearest cosine to any of the text's (none below 0), each weighted by its rarity
    among `texts`. Each distinct token is looked up and compared once."""
    asked = np.unique(question[searchable[question]])
    words = [ids[searchable[ids]] for ids in texts]
    flat = np.concatenate(words) if words else np.zeros(0, dtype=np.int64)
    if not asked.size or not flat.size:
        return [0.0] * len(texts)
    distinct, where = np.unique(flat, return_inverse=True)
    near = (table.unit_vectors(asked) @ table.unit_vectors(distinct).T)[:, where]
    sizes = np.array([len(w) for w in words])
    held = sizes > 0
    nearest = np.zeros((len(asked), len(texts)), dtype=np.float32)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))[held]
    nearest[:, held] = np.maximum.reduceat(near, starts, axis=1)
    holders = (nearest > EXACT).sum(axis=1)  # texts holding the token itself
    rarity = np.log((len(texts) + 1) / (holders + 0.5))
    return [float(v) for v in (np.maximum(nearest, 0.0) * rarity[:, None]).sum(axis=0)]


@dataclass(frozen=True, slots=True)
class SoftTerms:
    """Ranks a search's best matches again by their words' nearness to the question's."""

    table: TokenTableSource
    _searchable: dict[int, tuple[TokenTable, np.ndarray]] = field(default_factory=dict)

    async def reranked(self, topic: str, matches: list[MessageMatch]) -> list[MessageMatch]:
        """`matches` with the first RERANK_DEPTH fused with their order by soft scores
        (`topic`: the question without the names it says); as they are when the table is not
        there."""
        head = matches[:RERANK_DEPTH]
        table = self.table()
        if len(head) < 2 or not topic.strip() or table is None:
            return matches
        try:
            texts = [m.content[:TEXT_CHARS] for m in head]
            scores = await asyncio.to_thread(self._scores, table, topic, texts)
        except Exception:  # a second opinion: never worth a search
            _log.exception("recall could not rank its matches by their words")
            return matches
        by_score = sorted(range(len(head)), key=lambda i: -scores[i])
        by_id = {m.message_id: m for m in head}
        order = fuse([[m.message_id for m in head], [head[i].message_id for i in by_score]])
        return [by_id[key] for key in order] + matches[RERANK_DEPTH:]

    def prepare(self, table: TokenTable) -> None:
        """Ready for `table` (its stop-word mask, the tokenizer's and numpy's first calls: tens
        of milliseconds a first search paid), in the thread that loads it."""
        self._scores(table, "a first question", ["a first answer", "and another"])

    def _scores(self, table: TokenTable, topic: str, texts: list[str]) -> list[float]:
        known = self._searchable.get(id(table))
        if known is None or known[0] is not table:  # one table per process: computed once
            known = self._searchable[id(table)] = (table, searchable_tokens(table.pieces))
        searchable = known[1]
        question, *found = table.token_ids([topic.lower(), *(text.lower() for text in texts)])
        return soft_scores(table, searchable, question, found)
