"""A fake embedding model behind the fake HTTP server: texts about the same thing get the same
direction, whatever words they use ("bouldering" and "climbing gym" are both about climbing),
so semantic recall can be tested without a model."""

from __future__ import annotations

from typing import Any

from memory.llm import EMBEDDING_DIMENSIONS
from tests.memory.llm.fake_http import Recorded, Reply

# concept -> word stems that mean it
CONCEPTS: dict[str, tuple[str, ...]] = {
    "climbing": ("climb", "boulder", "crag", "belay"),
    "food": ("pizza", "ramen", "sushi", "dinner", "ate", "eat"),
    "music": ("cello", "concert", "jazz", "guitar"),
    "travel": ("train", "flight", "trip", "berlin", "lisbon"),
}


def concept_vector(text: str) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSIONS
    lowered = text.lower()
    for index, stems in enumerate(CONCEPTS.values()):
        if any(stem in lowered for stem in stems):
            vector[index] = 1.0
    vector[EMBEDDING_DIMENSIONS - 1] = 0.05  # never the zero vector
    return vector


def _texts(request: Recorded) -> list[str]:
    body: dict[str, Any] = request.body
    if "input" in body:  # OpenAI-compatible /embeddings
        return list(body["input"])
    return [item["content"]["parts"][0]["text"] for item in body["requests"]]  # Gemini


def embeddings_reply(request: Recorded) -> Reply:
    vectors = [concept_vector(text) for text in _texts(request)]
    if request.path.endswith("/embeddings"):
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        usage = {"prompt_tokens": 10, "total_tokens": 10}
        return Reply(body={"object": "list", "data": data, "model": "fake", "usage": usage})
    return Reply(body={"embeddings": [{"values": v} for v in vectors]})
