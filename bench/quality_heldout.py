"""The held-out split of the quality bench: a second family of chats the retrieval code was
never tuned on.

    chat = generate_heldout(seed=0, members=5, sessions=30, days=150, per_kind=10)

Same shape as bench/quality_data.py (a QualityChat, scored by bench/quality_score.py), other
everything: people, topics and word pools (bench/quality_heldout_pools.py), phrasings, and how
an answer is said (the blocks of bench/quality_heldout_blocks.py). Here most answers come in an
exchange: the other speaker asks ("seen anything good at the cinema lately?") and the subject
answers in the next message without the question's words ("Gattaca - cried at the end"); some
answers span two messages of the subject (TWO_KIND: "first a week in Crete" / "then we took the
ferry to Rhodes"); and sessions hold lines that share a question's words without answering it
("my sister keeps sending me memes").
Kinds: single_fact, when, two_messages, never_said. Product code never names anything here
(tests/bench/test_quality_heldout.py); changes to retrieval are judged on this split.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from bench import quality_heldout_pools as pools
from bench.quality_data import QualityChat, words
from bench.quality_heldout_blocks import FACTS, TWOS, WHENS, Block, WordPicker
from bench.quality_plan import DISCORD_EPOCH_MS, ChatLine, Question, Session, schedule

GUILD_ID = 710_000_000_000_000_001
CHANNEL_ID = 710_000_000_000_001_001
FIRST_MEMBER_ID = 710_000_000_000_002_001
TWO_KIND = "two_messages"
HELDOUT_KINDS = ("single_fact", "when", TWO_KIND, "never_said")
# Share of filler lines replaced by a line sharing some question's words.
DISTRACTOR_SHARE = 0.15


@dataclass
class _Planted:
    session: int
    subject: str
    other: str
    block: Block
    key: int


def generate_heldout(
    *, seed: int = 0, members: int = 5, sessions: int = 30, days: int = 150, per_kind: int = 10
) -> QualityChat:
    """A held-out chat of `members` over `sessions` sessions, `per_kind` questions a kind."""
    if not 2 <= members <= len(pools.NAMES):
        raise ValueError(f"members must be 2..{len(pools.NAMES)}")
    if not 1 <= per_kind <= len(pools.NEVER):
        raise ValueError(f"per_kind must be 1..{len(pools.NEVER)}")
    rng = random.Random(seed * 7_919 + 34)
    names = list(pools.NAMES[:members])
    planned = schedule(rng, names, sessions, days)
    p = WordPicker(rng)
    planted: list[_Planted] = []
    questions: list[tuple[str, str, str, Block | None]] = []
    asked: set[str] = set()  # one question text once: two sisters of Bea would be ambiguous
    for index in range(per_kind):
        for kind in HELDOUT_KINDS:
            session, subject, other, block = _place(rng, p, planned, kind, index + seed, asked)
            if block is None:
                text, _ = pools.NEVER[index]
                questions.append((kind, subject, text.format(name=subject), None))
                continue
            planted.append(_Planted(session.index, subject, other, block, len(planted)))
            questions.append((kind, subject, block.question.format(name=subject), block))
    written, lines, ids = _write(rng, planned, planted, names)
    chat = QualityChat(
        seed=seed,
        members={name: FIRST_MEMBER_ID + pools.NAMES.index(name) for name in names},
        channels={CHANNEL_ID: "lounge"},
        lines=lines,
        sessions=written,
        guild_id=GUILD_ID,
        guild_name="Held-out Bench",
    )
    plant_ids = iter(ids)
    for kind, subject, text, block in questions:
        asker = rng.choice([m for m in names if m != subject])
        if block is None:
            term = next(t for q, t in pools.NEVER if q.format(name=subject) == text)
            chat.questions.append(Question(kind, asker, subject, text, (), (), (term,)))
            continue
        evidence = next(plant_ids)
        chat.questions.append(Question(kind, asker, subject, text, evidence, block.answer))
    _check(chat)
    return chat


def _place(
    rng: random.Random, p: WordPicker, planned: list[Session], kind: str, turn: int, asked: set[str]
) -> tuple[Session, str, str, Block | None]:
    """A session, its subject and other speaker, and the block planted there (None: a
    never-said question), whose question was not asked yet."""
    while True:
        session = rng.choice(planned)
        subject, other = rng.sample(list(session.members), 2)
        if kind == "never_said":
            return session, subject, other, None
        if kind == "when":
            when = WHENS[turn % len(WHENS)]
            name, make = when.__name__, partial(when, p, session.day)
        else:
            plain = FACTS[turn % len(FACTS)] if kind == "single_fact" else TWOS[turn % len(TWOS)]
            name, make = plain.__name__, partial(plain, p)
        key = f"{name}:{subject}"
        if key in asked:
            continue
        asked.add(key)
        block = make()
        return session, subject, other, block


def _filler(rng: random.Random) -> str:
    if rng.random() < DISTRACTOR_SHARE:
        return rng.choice(pools.DISTRACTORS)
    return rng.choice(pools.FILLER)


def _write(
    rng: random.Random, planned: list[Session], planted: list[_Planted], names: list[str]
) -> tuple[list[Session], list[ChatLine], list[tuple[int, ...]]]:
    """Every session's messages: filler by its members, the planted blocks kept whole (an
    exchange is said in a row) at random places; the evidence ids of each block in order."""
    sessions: list[Session] = []
    lines: list[ChatLine] = []
    evidence: dict[int, tuple[int, ...]] = {}
    sequence = 0
    for session in planned:
        who = list(session.members)
        items: list[list[tuple[str, str, int | None]]] = [
            [(rng.choice(who), _filler(rng), None)] for _ in range(rng.randint(10, 18))
        ]
        for plant in (p for p in planted if p.session == session.index):
            block = [
                (plant.subject if role == "S" else plant.other, text, plant.key if ev else None)
                for role, text, ev in plant.block.lines
            ]
            items.insert(rng.randrange(1, len(items) + 1), block)
        at = session.start
        mine: list[int] = []
        for author, text, key in (line for item in items for line in item):
            at += timedelta(seconds=rng.randint(20, 200))
            sequence += 1
            millis = int(at.timestamp() * 1000) - DISCORD_EPOCH_MS
            message_id = (millis << 22) | (sequence & 0x3FFFFF)
            author_id = FIRST_MEMBER_ID + pools.NAMES.index(author)
            lines.append(
                ChatLine(message_id, session.index, CHANNEL_ID, author, author_id, at, text)
            )
            mine.append(message_id)
            if key is not None:
                evidence[key] = (*evidence.get(key, ()), message_id)
        first = next(line.at for line in lines if line.message_id == mine[0])
        sessions.append(Session(session.index, CHANNEL_ID, session.members, tuple(mine), first, at))
    return sessions, lines, [evidence[key] for key in sorted(evidence)]


def _check(chat: QualityChat) -> None:
    """Answer words said only where planted, never-said terms never said, no answer word in
    its own question."""
    said = {word for line in chat.lines for word in words(line.content)}
    for question in chat.questions:
        assert not said & set(question.absent), question
        asked = f" {' '.join(words(question.text))} "
        evidence = " ".join(chat.line(i).content for i in question.evidence_ids)
        for group in question.answer:
            assert all(f" {' '.join(words(alt))} " not in asked for alt in group), question
            assert any(
                f" {' '.join(words(alt))} " in f" {' '.join(words(evidence))} " for alt in group
            ) or question.kind in ("when",), question
        others = [
            line.content for line in chat.lines if line.message_id not in question.evidence_ids
        ]
        for group in question.answer if question.kind != "when" else ():
            for alt in group:
                wanted = f" {' '.join(words(alt))} "
                assert not any(wanted in f" {' '.join(words(o))} " for o in others), question
