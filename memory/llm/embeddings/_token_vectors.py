"""A text's tokens with their own vectors, unaveraged: what a word-by-word match compares.

Only a model that runs here has them (the local static one); an API returns one vector a text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


class TokenTable(Protocol):
    """A model's tokenizer and token vectors."""

    @property
    def pieces(self) -> Sequence[str]:
        """Each token's letters by id (without the tokenizer's word mark)."""
        ...

    def token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's token ids, in order."""
        ...

    def unit_vectors(self, ids: np.ndarray) -> np.ndarray:
        """One unit vector per id, a row each."""
        ...


# What a user of the table readies once it is loaded (its own lookups, its first numpy calls).
TablePreparation = Callable[[TokenTable], None]


@runtime_checkable
class HasTokenTable(Protocol):
    def token_table(self) -> TokenTable | None:
        """The table when it can serve at once; None while it is not loaded."""
        ...

    def when_loaded(self, prepare: TablePreparation) -> None:
        """Run `prepare` with the table once it is loaded, off the event loop (in the thread
        that loads it), so a search does not pay for it."""
        ...
