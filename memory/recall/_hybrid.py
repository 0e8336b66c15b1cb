"""Hybrid ranking: full-text and semantic results fused by reciprocal rank (RRF).

Full-text ranks words ("climbing gym" finds "climbing gym"); embeddings rank meaning
("a cello recital" answers "music"). Their scores are not comparable, their orders are: each hit
scores the sum over the lists it appears in of 1 / (K + its position), so a row both searches
found comes first, and a row only one found still ranks by how high that one put it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

# The usual RRF constant: damps the difference between the first few positions.
K = 60

Key = TypeVar("Key", bound=Hashable)


def fuse(rankings: Sequence[Sequence[Key]]) -> list[Key]:
    """The keys of every ranking, best first by summed reciprocal rank; ties keep the order
    in which keys were first seen (earlier rankings, then earlier positions)."""
    scores: dict[Key, float] = {}
    for ranking in rankings:
        for position, key in enumerate(ranking):
            scores[key] = scores.get(key, 0.0) + 1.0 / (K + position + 1)
    order = {key: index for index, key in enumerate(scores)}
    return sorted(scores, key=lambda key: (-scores[key], order[key]))
