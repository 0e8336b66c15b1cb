"""The embeddings bench on LoCoMo-shaped conversations: an encoder that finds the evidence scores
it as found, one that ranks it last does not, and a question's names are not what is looked up."""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from bench.embeddings import in_batches
from bench.embeddings_locomo import Encode, Ranks, evidence_ranks, report_ranks
from bench.locomo_data import conversation
from bench.report import Reporter
from tests.bench.figure_support import says, value_of
from tests.bench.test_locomo_bench import _sample

WIDTH = 64


def _bag_of_words(texts: Sequence[str]) -> np.ndarray:
    """Shared words make texts near: each word's bucket counts (a stand-in for meaning)."""
    out = np.zeros((len(texts), WIDTH), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            out[row, zlib.crc32(word.encode()) % WIDTH] += 1
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.asarray(out / np.maximum(norms, 1e-9), dtype=np.float32)


def _ranks(encode: Encode) -> Ranks:
    ranks = Ranks()
    evidence_ranks(conversation(_sample(), 0), encode, ranks)
    return ranks


def _figures(ranks: Ranks) -> Reporter:
    report = Reporter(io.StringIO())
    report_ranks(report, "m", ranks, 1, nearest=1)
    return report


def test_evidence_the_encoder_puts_nearest_counts_as_found() -> None:
    report = _figures(_ranks(_bag_of_words))
    # "What is Ada's ferret called?" finds the ferret turn first.
    assert report.value("embeddings", "evidence_in_nearest", category="single_hop") == 1.0
    # "What did Ben grow and win with?" has two evidence turns: one cannot both be nearest.
    assert report.value("embeddings", "evidence_all_in_nearest", category="multi_hop") == 0.0


def test_an_encoder_that_ranks_the_evidence_last_scores_it_missing() -> None:
    def backwards(texts: Sequence[str]) -> np.ndarray:
        """Questions point away from the turns that share their words."""
        sign = np.array([[-1.0] if text.endswith("?") else [1.0] for text in texts])
        return np.asarray(_bag_of_words(texts) * sign, dtype=np.float32)

    found = _figures(_ranks(_bag_of_words))
    assert found.value("embeddings", "evidence_in_nearest", category="all") == pytest.approx(
        1 / 3, abs=1e-3
    )
    # The ferret turn, the one a shared word finds, now ranks last of the three.
    wrong = _figures(_ranks(backwards))
    assert wrong.value("embeddings", "evidence_in_nearest", category="single_hop") == 0.0


def test_a_question_is_looked_up_without_the_names_it_says() -> None:
    seen: list[str] = []

    def spy(texts: Sequence[str]) -> np.ndarray:
        seen.extend(texts)
        return _bag_of_words(texts)

    _ranks(spy)
    assert "What is ferret called?" in seen


def test_a_model_that_embeds_questions_its_own_way_asks_with_that_encoder() -> None:
    """E5 embeds "query: ..." and "passage: ..." apart: the turns with one encoder, the
    questions with the other, or the ranks measure a model nobody would run."""
    asked: list[str] = []

    def questions(texts: Sequence[str]) -> np.ndarray:
        asked.extend(texts)
        return _bag_of_words(texts)

    def turns(texts: Sequence[str]) -> np.ndarray:
        assert not any(text.endswith("?") for text in texts)
        return _bag_of_words(texts)

    ranks = Ranks()
    evidence_ranks(conversation(_sample(), 0), turns, ranks, encode_questions=questions)
    assert "What is ferret called?" in asked
    report = _figures(ranks)
    assert report.value("embeddings", "evidence_in_nearest", category="single_hop") == 1.0
    # A question encoder that points away from the turns ranks the evidence last.
    away = Ranks()
    evidence_ranks(
        conversation(_sample(), 0), turns, away, encode_questions=lambda t: -questions(t)
    )
    assert _figures(away).value("embeddings", "evidence_in_nearest", category="single_hop") == 0.0


def test_batches_keep_each_text_with_its_vector() -> None:
    texts = ["a much longer text about ferrets and gardens", "tomatoes", "ferret", "x y"]
    batched = in_batches(_bag_of_words, size=2)(texts)
    assert np.allclose(batched, _bag_of_words(texts))


def test_design_quotes_the_embedders_on_real_conversations() -> None:
    def whole(model: str, category: str) -> str:
        params = {"model": model, "category": category, "conversations": 2, "nearest": 20}
        return f"{value_of('embeddings', 'evidence_all_in_nearest', **params):.0%}"

    local, minilm, e5 = "local", "all-MiniLM-L6-v2", "multilingual-e5-small-q4"
    says(
        f"for {whole(local, 'all')} of questions with the local model and"
        f" {whole(minilm, 'all')} with the sentence encoder; for the multi-hop ones,"
        f" {whole(local, 'multi_hop')} and {whole(minilm, 'multi_hop')}.",
        "docs/design.md",
    )
    says(
        f"The 4-bit e5 gives {whole(e5, 'all')} and {whole(e5, 'multi_hop')} as well.",
        "docs/design.md",
    )


def test_design_weighs_the_fastest_sentence_encoder_as_the_bench_did() -> None:
    e5 = "multilingual-e5-small-q4"
    local = value_of("embeddings", "messages_per_s", model="local")
    encoder = value_of("embeddings", "messages_per_s", model="all-MiniLM-L6-v2")
    e5_rate = value_of("embeddings", "messages_per_s", model=e5)
    assert e5_rate > encoder, "no longer the fastest sentence encoder: rewrite design.md"
    assert local / e5_rate >= 100, "no longer two orders of magnitude: rewrite design.md"
    says(
        f"it embeds about {e5_rate:,.0f} short messages a second (MiniLM in numpy about"
        f" {encoder:,.0f}), and it ranks the written answers best"
        f" ({value_of('embeddings', 'answer_in_top5', model=e5):.0%} of them in its top five,"
        f" {value_of('embeddings', 'answer_in_top5', model='local'):.0%} for the static model)",
        "docs/design.md",
    )
    says(
        f"in numpy on two cores (the embeddings bench; the 4-bit e5 about {e5_rate:,.0f})",
        "docs/design.md",
    )
