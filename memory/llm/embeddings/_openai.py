"""Embeddings from an OpenAI-compatible `/embeddings` endpoint (Ollama, llama.cpp, vLLM,
OpenAI) through `openai` (the `openai` extra; imported when used)."""

from __future__ import annotations

from collections.abc import Sequence

import openai

from memory.llm.embeddings._dimensions import EMBEDDING_DIMENSIONS
from memory.llm.providers import LLMUnavailable
from memory.llm.providers.openai_compat import openai_client


class OpenAIEmbeddings:
    name = "openai"
    min_similarity = 0.0  # a sentence model: its nearest are worth fusing
    width = EMBEDDING_DIMENSIONS

    def __init__(
        self, *, base_url: str, api_key: str | None, model: str, timeout_seconds: float
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._client = openai_client(base_url, api_key, timeout_seconds)

    async def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        sized = self.model.startswith("text-embedding-3")  # the ones that take a size
        try:
            if sized:
                response = await self._client.embeddings.create(
                    model=self.model, input=list(texts), dimensions=EMBEDDING_DIMENSIONS
                )
            else:
                response = await self._client.embeddings.create(model=self.model, input=list(texts))
        except openai.APIError as exc:
            raise LLMUnavailable(f"embeddings from {self.base_url} ({self.model}): {exc}") from exc
        return [list(item.embedding) for item in sorted(response.data, key=lambda d: d.index)]

    def warm(self) -> bool:
        return True  # a remote model: nothing to load here

    async def aclose(self) -> None:
        await self._client.close()
