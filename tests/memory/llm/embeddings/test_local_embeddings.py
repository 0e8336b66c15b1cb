"""The local embedder of the default install, with the real weights from the `wordllama` wheel:
texts that mean the same thing in other words are near, unrelated ones far, and the vectors fit
the stored size."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.llm import TokenTable, build_embedder
from memory.llm.embeddings._local import WIDTH, LocalEmbeddings
from tests.support import eventually

# Each pair says one thing twice, with no word in common.
PARAPHRASES = [
    ("I adopted a puppy", "we got a new dog"),
    ("the concert was amazing", "great live music show"),
    ("my flight got cancelled", "the plane trip was called off"),
    ("my car broke down on the highway", "the vehicle stopped working on the motorway"),
]


@pytest.fixture(scope="module")
def local() -> LocalEmbeddings:
    return LocalEmbeddings()


def test_paraphrases_are_near_and_unrelated_texts_far(local: LocalEmbeddings) -> None:
    first = local.encode([a for a, _ in PARAPHRASES])
    second = local.encode([b for _, b in PARAPHRASES])
    similarity = first @ second.T
    for row, (text, same) in enumerate(PARAPHRASES):
        others = [similarity[row, column] for column in range(len(PARAPHRASES)) if column != row]
        assert similarity[row, row] >= 0.3, (text, same)
        assert similarity[row, row] - max(others) >= 0.25, (text, same, similarity[row])


def test_vectors_are_unit_length_at_the_stored_size(local: LocalEmbeddings) -> None:
    vectors = local.encode(["hello there", "", "a much longer message " * 200])
    assert vectors.shape == (3, WIDTH)
    norms = np.linalg.norm(vectors, axis=1)
    assert norms[0] == pytest.approx(1.0, abs=1e-3) and norms[2] == pytest.approx(1.0, abs=1e-3)
    assert norms[1] == 0.0  # no token, no direction: never near anything


async def test_the_default_install_embeds_locally_and_the_setting_turns_it_off() -> None:
    default = Settings(_env_file=None)
    embedder = build_embedder(default, Telemetry(), limiter=None)
    assert embedder is not None and embedder.local
    assert embedder.model_name == "local:wordllama-l2-supercat-256"
    [vector] = await embedder.embed(["where do you go climbing?"], query=True)
    assert len(vector) == WIDTH
    off = Settings(_env_file=None, local_embeddings=False)
    assert build_embedder(off, Telemetry(), limiter=None) is None


async def test_a_search_does_not_wait_for_the_table_to_load() -> None:
    """The first question after a start is not held while the 16 MB table loads: `warm` says
    not yet and loads it off the caller's path; then it is ready."""
    cold = LocalEmbeddings()
    assert cold.warm() is False
    assert cold.token_table() is None  # the word-by-word second opinion does not wait either
    await eventually(cold.warm, timeout=30)
    assert cold.encode(["hello"]).shape == (1, WIDTH)
    table = cold.token_table()
    assert table is not None
    [ids] = table.token_ids(["surfing"])
    assert "".join(table.pieces[i] for i in ids) == "surfing"
    assert table.unit_vectors(ids).shape == (len(ids), WIDTH)


async def test_what_waits_for_the_table_is_readied_where_it_loads_before_it_serves() -> None:
    """A user of the token table readies itself in the loading thread, before the table is
    served to a search; one that fails does not stop the load; one that comes later is readied
    at once."""
    cold = LocalEmbeddings()
    readied: list[tuple[str, bool]] = []

    def prepare(table: TokenTable) -> None:
        readied.append((threading.current_thread().name, cold.token_table() is None))

    def broken(table: TokenTable) -> None:
        raise RuntimeError("cannot ready")

    cold.when_loaded(broken)
    cold.when_loaded(prepare)
    assert readied == []  # nothing loads until something asks
    cold.warm()
    await eventually(cold.warm, timeout=30)
    assert readied == [("memorybot-embeddings-load", True)]  # before the table was served
    cold.when_loaded(prepare)
    assert readied[-1] == (threading.current_thread().name, False)
