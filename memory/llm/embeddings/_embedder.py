"""Text embeddings for semantic recall: Gemini (`google-genai`) or an OpenAI-compatible
`/embeddings` endpoint (Ollama, llama.cpp, vLLM, OpenAI); with neither, the local static model
that ships in the `wordllama` wheel (`_local.py`).

Each model says its vectors' width, and one of another width is refused with a message saying
so (pgvector indexes one width at a time; V028 indexes the local model's 256 and the API
models' EMBEDDING_DIMENSIONS). Gemini is asked for that size (`output_dimensionality`), OpenAI's
text-embedding-3 models too (`dimensions`); any other model must produce it itself
(nomic-embed-text does). Nothing is downloaded: the model runs where the provider runs.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Protocol

from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm.embeddings._token_vectors import HasTokenTable, TablePreparation, TokenTable
from memory.llm.providers import LLMUnavailable, RequestLimiter

_log = logging.getLogger(__name__)

# Texts per request: both APIs take batches; this keeps one request well under their limits.
BATCH_SIZE = 100


class EmbeddingModel(Protocol):
    name: str
    model: str
    # Nearest messages less similar (cosine) than this are not recalled: noise, not meaning.
    min_similarity: float
    # Components of every vector it makes.
    width: int

    async def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]: ...

    def warm(self) -> bool:
        """Ready to embed at once (a local model starts loading, off the caller's path)."""
        ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True, eq=False)
class Embedder:
    """Embeds texts in batches within the shared rate limit, checks every vector's size and
    reports each request to telemetry (op `embed`)."""

    model: EmbeddingModel
    _: KW_ONLY
    limiter: RequestLimiter | None
    telemetry: Telemetry

    @property
    def local(self) -> bool:
        """Runs in this process (no request, no quota, no tokens)."""
        return self.model.name == "local"

    @property
    def model_name(self) -> str:
        return f"{self.model.name}:{self.model.model}"

    def token_table(self) -> TokenTable | None:
        """The model's tokenizer and token vectors when it has them at once (the local one,
        loaded); None for any other."""
        if not isinstance(self.model, HasTokenTable):
            return None
        return self.model.token_table()

    def when_token_table(self, prepare: TablePreparation) -> None:
        """Run `prepare` once the token table is loaded, where it loads (never, for a model
        without one)."""
        if isinstance(self.model, HasTokenTable):
            self.model.when_loaded(prepare)

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            vectors += await self._batch(texts[start : start + BATCH_SIZE], query=query)
        return vectors

    async def _batch(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        if self.limiter is not None:
            await self.limiter.acquire()
        fields = {"provider": self.model.name, "model": self.model.model, "count": len(texts)}
        with self.telemetry.span("embed", **fields):
            vectors = await self.model.embed(texts, query=query)
            _check(vectors, len(texts), self.model_name, self.model.width)
        return vectors

    async def aclose(self) -> None:
        await self.model.aclose()


def _check(vectors: list[list[float]], expected: int, model: str, width: int) -> None:
    if len(vectors) != expected:
        raise LLMUnavailable(f"{model} returned {len(vectors)} embeddings for {expected} texts")
    for vector in vectors:
        if len(vector) != width:
            raise LLMUnavailable(
                f"{model} returns {len(vector)}-dimensional vectors; memorybot stores"
                f" {width} (use a model that makes them, e.g. nomic-embed-text)"
            )


def build_embedder(
    settings: Settings, telemetry: Telemetry, *, limiter: RequestLimiter | None
) -> Embedder | None:
    """The configured embedding model: EMBEDDING_PROVIDER's; unset, the local one (no limiter:
    it spends no quota) unless LOCAL_EMBEDDINGS=false; None means full-text only."""
    if settings.embedding_provider is None:
        if not settings.local_embeddings:
            return None
        from memory.llm.embeddings._local import LocalEmbeddings

        return Embedder(LocalEmbeddings(), limiter=None, telemetry=telemetry)
    timeout = settings.llm_timeout_seconds
    try:  # the SDKs are optional extras, and slow to import: only when used
        if settings.embedding_provider == "gemini":
            from memory.llm.embeddings._gemini import GeminiEmbeddings as Gemini
        elif settings.embedding_provider == "openai":
            from memory.llm.embeddings._openai import OpenAIEmbeddings as OpenAI
    except ImportError:
        _log.warning(
            "EMBEDDING_PROVIDER=%s but its SDK is not installed (pip install 'memorybot[%s]');"
            " recall uses full-text search only",
            settings.embedding_provider,
            settings.embedding_provider,
        )
        return None
    if settings.embedding_provider == "gemini" and settings.gemini_api_key is not None:
        model: EmbeddingModel = Gemini(
            api_key=settings.gemini_api_key.get_secret_value(),
            model=settings.gemini_embedding_model,
            base_url=settings.gemini_base_url,
            timeout_seconds=timeout,
        )
    elif settings.embedding_provider == "openai":
        key = settings.openai_api_key
        model = OpenAI(
            base_url=settings.openai_base_url,
            api_key=key.get_secret_value() if key else None,
            model=settings.openai_embedding_model,
            timeout_seconds=timeout,
        )
    else:
        return None
    return Embedder(model, limiter=limiter, telemetry=telemetry)
