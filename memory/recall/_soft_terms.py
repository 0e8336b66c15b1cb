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
order then stays as it is). A few milliseconds of numpy per search, off the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from db.recall import MessageMatch
from memory.language import SEARCH_STOP_WORDS
from memory.llm import TokenVectors
from memory.recall._hybrid import fuse

_log = logging.getLogger(__name__)

# Matches ranked again: past these the lanes' order stands (and so does the cost).
RERANK_DEPTH = 60

TokenVectorSource = Callable[[Sequence[str]], list[TokenVectors] | None]


@dataclass(frozen=True, slots=True)
class _Words:
    """A text's searchable tokens (no stop word, no single letter) and their vectors."""

    pieces: tuple[str, ...]
    vectors: np.ndarray

    @classmethod
    def of(cls, tokens: TokenVectors) -> _Words:
        keep = [i for i, piece in enumerate(tokens.pieces) if _searchable(piece)]
        return cls(tuple(tokens.pieces[i] for i in keep), tokens.vectors[keep])


def _searchable(piece: str) -> bool:
    return len(piece) > 1 and piece not in SEARCH_STOP_WORDS


def soft_scores(question: TokenVectors, texts: Sequence[TokenVectors]) -> list[float]:
    """Per text: the sum over the question's distinct words of their nearest cosine to any of
    the text's words (none below 0), each weighted by its rarity among `texts`."""
    asked = _Words.of(question)
    _, first = np.unique(np.array(asked.pieces, dtype=object), return_index=True)
    wanted = asked.vectors[np.sort(first)] if asked.pieces else asked.vectors
    words = [_Words.of(text) for text in texts]
    if not len(wanted) or not words:
        return [0.0] * len(texts)
    nearest = [
        (wanted @ w.vectors.T).max(axis=1) if len(w.pieces) else np.zeros(len(wanted))
        for w in words
    ]
    held = Counter(int(i) for near in nearest for i in np.flatnonzero(near > 0.999))
    rarity = np.array([math.log((len(words) + 1) / (held[i] + 0.5)) for i in range(len(wanted))])
    return [float((np.maximum(near, 0.0) * rarity).sum()) for near in nearest]


@dataclass(frozen=True, slots=True)
class SoftTerms:
    """Ranks a search's best matches again by their words' nearness to the question's."""

    vectors: TokenVectorSource

    async def reranked(self, topic: str, matches: list[MessageMatch]) -> list[MessageMatch]:
        """`matches` with the first RERANK_DEPTH fused with their order by soft scores
        (`topic`: the question without the names it says); as they are when the vectors are
        not there."""
        head = matches[:RERANK_DEPTH]
        if len(head) < 2 or not topic.strip():
            return matches
        try:
            scores = await asyncio.to_thread(self._scores, topic, [m.content for m in head])
        except Exception:  # a second opinion: never worth a search
            _log.exception("recall could not rank its matches by their words")
            return matches
        if scores is None:
            return matches
        by_score = sorted(range(len(head)), key=lambda i: -scores[i])
        by_id = {m.message_id: m for m in head}
        order = fuse([[m.message_id for m in head], [head[i].message_id for i in by_score]])
        return [by_id[key] for key in order] + matches[RERANK_DEPTH:]

    def _scores(self, topic: str, texts: list[str]) -> list[float] | None:
        found = self.vectors([topic.lower(), *(text.lower() for text in texts)])
        if found is None:
            return None
        return soft_scores(found[0], found[1:])
