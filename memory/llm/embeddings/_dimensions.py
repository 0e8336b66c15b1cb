"""The size of every stored vector, on its own so the model adapters and the Embedder that
loads them both read it without importing each other."""

from __future__ import annotations

# The `vector(768)` column of V012.
EMBEDDING_DIMENSIONS = 768
