"""Embeddings from Gemini through `google-genai` (the `gemini` extra; imported when used)."""

from __future__ import annotations

from collections.abc import Sequence

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from memory.llm._base import LLMUnavailable
from memory.llm._embeddings import EMBEDDING_DIMENSIONS


class GeminiEmbeddings:
    name = "gemini"

    def __init__(
        self, *, api_key: str, model: str, base_url: str | None, timeout_seconds: float
    ) -> None:
        self.model = model
        options = types.HttpOptions(
            base_url=base_url,
            timeout=int(timeout_seconds * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        self._client = genai.Client(api_key=api_key, http_options=options)

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

    async def aclose(self) -> None:
        await self._client.aio.aclose()
