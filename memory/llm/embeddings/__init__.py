"""Embeddings for hybrid recall: one Embedder over Gemini or an OpenAI-compatible endpoint."""

from __future__ import annotations

from memory.llm.embeddings._dimensions import EMBEDDING_DIMENSIONS
from memory.llm.embeddings._embedder import Embedder, build_embedder
from memory.llm.embeddings._token_vectors import TokenTable

__all__ = ["EMBEDDING_DIMENSIONS", "Embedder", "TokenTable", "build_embedder"]
