"""Embeddings from Gemini through `google-genai` (the `gemini` extra; imported when used)."""

from __future__ import annotations

from collections.abc import Sequence

from google.genai import errors as genai_errors
from google.genai import types

from memory.llm.embeddings._dimensions import EMBEDDING_DIMENSIONS
from memory.llm.providers import LLMUnavailable
from memory.llm.providers.gemini import gemini_client


class GeminiEmbeddings:
    name = "gemini"
    min_similarity = 0.0  # a sentence model: its nearest are worth fusing
    width = EMBEDDING_DIMENSIONS

    def __init__(
        self, *, api_key: str, model: str, base_url: str | None, timeout_seconds: float
    ) -> None:
        self.model = model
        self._client = gemini_client(api_key, base_url, timeout_seconds)

    async def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        config = types.EmbedContentConfig(
            task_type="RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT",
            output_dimensionality=EMBEDDING_DIMENSIONS,
        )
        try:
            response = await self._client.aio.models.embed_content(
                model=self.model, contents=list(texts), config=config
            )
        except genai_errors.APIError as exc:
            raise LLMUnavailable(f"gemini embeddings ({self.model}): {exc}") from exc
        return [list(item.values or []) for item in response.embeddings or []]

    def warm(self) -> bool:
        return True  # a remote model: nothing to load here

    async def aclose(self) -> None:
        await self._client.aio.aclose()
