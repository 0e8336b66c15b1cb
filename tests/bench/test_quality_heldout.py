"""The held-out split of the quality bench measures what it claims: its questions point at the
messages that answer them (over two messages for its two-message kind), and nothing in the
product (memory/, db/) names its people, topics or answers, so nothing was tuned to it."""

from __future__ import annotations

import re
from pathlib import Path

from bench import quality_heldout_pools as pools
from bench.quality_data import words
from bench.quality_heldout import HELDOUT_KINDS, TWO_KIND, generate_heldout
from bench.quality_score import score

ROOT = Path(__file__).resolve().parents[2]


def test_heldout_chats_are_seeded_and_answers_sit_where_planted() -> None:
    chat = generate_heldout(seed=5)
    assert [line.content for line in generate_heldout(seed=5).lines] == [
        line.content for line in chat.lines
    ]
    assert {q.kind for q in chat.questions} == set(HELDOUT_KINDS)
    for question in chat.questions:
        evidence = [chat.line(message_id) for message_id in question.evidence_ids]
        assert all(line.author == question.subject for line in evidence)
        assert question.asker != question.subject
        if question.kind == TWO_KIND:
            assert len(evidence) == 2
            assert evidence[0].message_id < evidence[1].message_id
        elif question.kind == "never_said":
            assert not evidence and question.absent
        else:
            assert 1 <= len(evidence) <= 2
    # The two messages of an answer: a prompt with one of them does not carry the evidence.
    two = next(q for q in chat.questions if q.kind == TWO_KIND)
    first, second = (chat.line(i).content for i in two.evidence_ids)
    assert not score(chat, two, f"<recalled>{first}</recalled>").evidence
    assert score(chat, two, f"<recalled>{first}</recalled><recalled>{second}</recalled>").evidence


# The pools that hold people and answers, and the topics the templates ask about.
ANSWER_POOLS = (
    "NAMES",
    "FILMS",
    "BOOKS",
    "SISTERS",
    "TEAMS",
    "LANGUAGES",
    "DRINKS",
    "CITIES",
    "GIFTS",
    "PLACES",
    "VEG",
    "KITTENS",
)
TOPICS = (
    "cinema",
    "honeymoon",
    "kitten",
    "football",
    "nightstand",
    "ferry",
    "courgettes",
    "hallway",
    "sourdough",
    "eclipse",
    "sofa",
    "quiz",
    "volunteer",
    "housewarming",
    "graduation",
)


def _pool_words() -> set[str]:
    """The held-out split's people, answers, never-said terms and topics, lower-cased (an
    answer of two words as the two words together: "flat white", not "flat")."""
    found = set(TOPICS) | {term for _, term in pools.NEVER}
    for name in ANSWER_POOLS:
        found.update(" ".join(words(value)) for value in getattr(pools, name))
    return found


# Issue 34.4, not done yet: the offline learner's typed word lists (topics, jobs, foods) still
# hold a few of these words by chance; they go when the learner learns structure instead.
NOT_YET: set[str] = set()


def test_no_product_code_names_the_heldout_split() -> None:
    distinctive = _pool_words()
    assert len(distinctive) > 80
    named = {}
    for folder in ("memory", "db"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".sql"):
                continue
            text = f" {' '.join(re.findall(r'[a-zà-ÿ]+', path.read_text('utf-8').lower()))} "
            found = sorted(w for w in distinctive if f" {w} " in text)
            if found and str(path.relative_to(ROOT)) not in NOT_YET:
                named[str(path.relative_to(ROOT))] = found
    assert not named, named


def _tuned_sentences() -> set[str]:
    """Runs of five or more words the tuned split's chats are made of: its filler lines and the
    fixed words of the templates that plant answers (between their {placeholders})."""
    from bench import quality_pools as tuned

    source = (ROOT / "bench" / "quality_plan.py").read_text("utf-8")
    literals = re.findall(r'f?"([^"\n]{12,})"', source)
    texts = [*tuned.FILLER, *(part for text in literals for part in re.split(r"\{[^}]*\}", text))]
    found = set()
    for text in texts:
        run = " ".join(re.findall(r"[a-z']+", text.lower()))
        if len(run.split()) >= 5:
            found.add(run)
    return found


def test_no_product_code_quotes_the_tuned_split() -> None:
    """Docstrings and comments explain with their own examples, not the bench's sentences
    (a quoted bench line is a sign the code was fitted to it)."""
    sentences = _tuned_sentences()
    assert len(sentences) > 20
    quoted = {}
    for folder in ("memory", "db"):
        for path in (ROOT / folder).rglob("*.py"):
            text = " ".join(re.findall(r"[a-z']+", path.read_text("utf-8").lower()))
            hits = sorted(s for s in sentences if f" {s} " in f" {text} ")
            if hits:
                quoted[str(path.relative_to(ROOT))] = hits
    assert not quoted, quoted
