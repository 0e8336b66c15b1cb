"""A text's tokens with their own vectors, unaveraged: what a word-by-word match compares.

Only a model that runs here has them (the local static one); an API returns one vector a text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True, slots=True)
class TokenVectors:
    """One text's tokens (their letters, without the tokenizer's word mark) and their unit
    vectors, one row each."""

    pieces: tuple[str, ...]
    vectors: np.ndarray


@runtime_checkable
class TokenVectorModel(Protocol):
    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors] | None:
        """Each text's tokens and vectors; None when they cannot come at once (not loaded)."""
        ...
