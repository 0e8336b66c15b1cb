"""The size of the vectors asked of an API model, on its own so the model adapters and the
Embedder that loads them both read it without importing each other."""

from __future__ import annotations

# One of db/embeddings.STORED_WIDTHS (V028 indexes it); the local model stores its own 256.
EMBEDDING_DIMENSIONS = 768
