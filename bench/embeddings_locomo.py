"""How near each embedder puts a real question's evidence: LoCoMo-dev, not written triples.

Part of `python -m bench --only embeddings`. For each conversation of the development set
(bench/locomo_data.py) every turn is embedded (its text and its picture's caption, which the
import stores with it), and every answerable question ranks the turns by cosine, asked as
recall asks it (without the names of the members it names: `memory.recall._semantic.unnamed`).
Figures per `model` and category (and "all"):

- `evidence_in_nearest`: the share of evidence turns among the NEAREST turns nearest the
  question (20: what a reply's search returns);
- `evidence_all_in_nearest`: the share of questions whose evidence turns are all there.

The sentence encoders (bench/embeddings_minilm.py and bench/embeddings_e5.py, when installed)
are slow on two cores (their `messages_per_s`), so they read the first `minilm_conversations`;
the local model is reported on those same conversations beside them, and on all of them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bench.locomo_data import ANSWERABLE, Conversation, Turn, dataset_path, load
from bench.needs import require_file
from bench.report import Reporter
from memory.recall._semantic import unnamed

BENCH = "embeddings"
NEAREST = 20
Encode = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Ranks:
    """Per category: for each question, the rank of each of its evidence turns (0: nearest)."""

    by_category: dict[str, list[list[int]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, category: str, ranks: list[int]) -> None:
        for name in (category, "all"):
            self.by_category[name].append(ranks)


def turn_text(turn: Turn) -> str:
    """A turn as the import stores it: its text and its picture's caption."""
    return " ".join(part for part in (turn.text, turn.caption) if part)


def evidence_ranks(
    chat: Conversation, encode: Encode, ranks: Ranks, *, encode_questions: Encode | None = None
) -> None:
    """Rank every turn of `chat` for each answerable question; keep where its evidence sits
    (`encode_questions`: how a model that embeds questions its own way embeds them)."""
    turns = encode([turn_text(turn) for turn in chat.turns])
    where = {turn.dia_id: index for index, turn in enumerate(chat.turns)}
    names = {word.lower() for speaker in chat.speakers for word in speaker.split()}
    asked = [q for q in chat.questions if q.category in ANSWERABLE]
    asked = [q for q in asked if any(dia in where for dia in q.evidence)]
    if not asked:
        return
    questions = (encode_questions or encode)([unnamed(q.text, names) for q in asked])
    for question, vector in zip(asked, questions, strict=True):
        order = np.argsort(-(turns @ vector), kind="stable")
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        found = [int(position[where[dia]]) for dia in question.evidence if dia in where]
        ranks.add(question.category, found)


def report_ranks(
    report: Reporter, model: str, ranks: Ranks, conversations: int, *, nearest: int = NEAREST
) -> None:
    for category in (*ANSWERABLE, "all"):
        questions = ranks.by_category.get(category)
        if not questions:
            continue
        every = [rank for found in questions for rank in found]
        common = {"model": model, "category": category, "conversations": conversations}
        near = float(np.mean([rank < nearest for rank in every]))
        report(BENCH, "evidence_in_nearest", near, "fraction", nearest=nearest, **common)
        whole = float(np.mean([max(found) < nearest for found in questions]))
        report(BENCH, "evidence_all_in_nearest", whole, "fraction", nearest=nearest, **common)


def run(
    report: Reporter,
    models: dict[str, Encode],
    *,
    conversations: int,
    minilm_conversations: int,
    questions: dict[str, Encode] | None = None,
) -> None:
    """The local model on `conversations` conversations; each model (the local one too) on the
    first `minilm_conversations` when a model besides the local one is given (`questions`:
    the question encoders of the models that embed questions their own way)."""
    if not require_file(dataset_path(), "the LoCoMo development set"):
        return
    chats = load()[:conversations]
    ranks = Ranks()
    for chat in chats:
        evidence_ranks(chat, models["local"], ranks)
    report_ranks(report, "local", ranks, len(chats))
    if len(models) < 2 or minilm_conversations < 1:
        return
    few = chats[:minilm_conversations]
    for name, encode in models.items():
        ranks = Ranks()
        asking = (questions or {}).get(name)
        for chat in few:
            evidence_ranks(chat, encode, ranks, encode_questions=asking)
        report_ranks(report, name, ranks, len(few))
