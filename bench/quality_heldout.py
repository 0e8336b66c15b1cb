"""The held-out split of the quality bench: a second family of chats the retrieval code was
never tuned on.

    chat = generate_heldout(seed=0, members=5, sessions=30, days=150, per_kind=10)

Same shape as bench/quality_data.py (a QualityChat, scored by bench/quality_score.py), other
everything: people, topics and word pools (bench/quality_heldout_pools.py), phrasings, and how
an answer is said. Here most answers come in an exchange: the other speaker asks ("seen
anything good at the cinema lately?") and the subject answers in the next message without the
question's words ("Gattaca - cried at the end"); some answers span two messages of the subject
(TWO_KIND: "first a week in Crete" / "then we took the ferry to Rhodes"); and sessions hold
lines that share a question's words without answering it ("my sister keeps sending me memes").
Kinds: single_fact, when, two_messages, never_said. Product code never names anything here
(tests/bench/test_quality_heldout.py); changes to retrieval are judged on this split.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial

from bench import quality_heldout_pools as pools
from bench.quality_data import QualityChat, words
from bench.quality_plan import (
    DISCORD_EPOCH_MS,
    WEEKDAYS,
    ChatLine,
    Question,
    Session,
    date_words,
    schedule,
)

GUILD_ID = 710_000_000_000_000_001
CHANNEL_ID = 710_000_000_000_001_001
FIRST_MEMBER_ID = 710_000_000_000_002_001
TWO_KIND = "two_messages"
HELDOUT_KINDS = ("single_fact", "when", TWO_KIND, "never_said")
# Share of filler lines replaced by a line sharing some question's words.
DISTRACTOR_SHARE = 0.15


@dataclass(frozen=True)
class Block:
    """Lines said together: (speaker: "S" the subject or "O" the other, text, evidence?)."""

    lines: tuple[tuple[str, str, bool], ...]
    question: str
    answer: tuple[tuple[str, ...], ...]


class _Pools:
    """Takes each word once per chat (an answer word is said only where it was planted)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def take(self, pool: tuple[str, ...]) -> str:
        value = self.rng.choice([v for v in pool if v not in self.used])
        self.used.add(value)
        return value

    def pair(self, pool: tuple[tuple[str, str], ...]) -> tuple[str, str]:
        first = self.take(tuple(a for a, _ in pool))
        return first, dict(pool)[first]


def _film(p: _Pools) -> Block:
    film = p.take(pools.FILMS)
    return Block(
        (
            ("O", "seen anything good at the cinema lately?", False),
            ("S", f"{film} - cried at the end, no shame", True),
        ),
        "What film did {name} see at the cinema?",
        ((film,),),
    )


def _book(p: _Pools) -> Block:
    book = p.take(pools.BOOKS)
    return Block(
        (
            ("O", "what are you reading at the moment?", False),
            ("S", f"{book}, a friend lent it to me and I can't put it down", True),
        ),
        "What has {name} been reading?",
        ((book,),),
    )


def _sister(p: _Pools) -> Block:
    sister = p.take(pools.SISTERS)
    return Block(
        (("S", f"my sister {sister} finally got her pilot licence!!", True),),
        "What is the name of {name}'s sister?",
        ((sister,),),
    )


def _team(p: _Pools) -> Block:
    team = p.take(pools.TEAMS)
    return Block(
        (
            ("O", "who do you support, football-wise?", False),
            ("S", f"{team}, since I was six. it's a curse", True),
        ),
        "Which football team does {name} support?",
        ((team,),),
    )


def _language(p: _Pools) -> Block:
    language = p.take(pools.LANGUAGES)
    return Block(
        (
            ("O", "how's the language app going?", False),
            ("S", f"{language} is so much harder than I thought, the verbs!", True),
        ),
        "Which language is {name} learning?",
        ((language,),),
    )


def _drink(p: _Pools) -> Block:
    drink = p.take(pools.DRINKS)
    return Block(
        (
            ("O", "what's your usual order at the café?", False),
            ("S", f"a {drink}, every single time", True),
        ),
        "What does {name} usually order at the café?",
        ((drink,),),
    )


def _relative(rng: random.Random, said: date) -> tuple[date, str]:
    form = rng.choice(("yesterday", "last", "on", "days"))
    if form == "yesterday":
        return said - timedelta(days=1), "yesterday"
    if form == "days":
        return said - timedelta(days=3), "three days ago"
    if form == "last":
        day = said - timedelta(days=rng.randint(2, 7))
        return day, f"last {WEEKDAYS[day.weekday()]}"
    day = said - timedelta(days=rng.randint(3, 20))
    return day, f"on {day.strftime('%B')} {day.day}"


def _when_story(p: _Pools, said: date) -> Block:
    done, asked = p.pair(pools.EVENTS)
    day, when = _relative(p.rng, said)
    return Block(
        (
            ("O", "so what have you been up to?", False),
            ("S", f"oh! {when} I {done}", True),
        ),
        f"When did {{name}} {asked}?",
        (date_words(day),),
    )


def _when_asked_back(p: _Pools, said: date) -> Block:
    done, asked = p.pair(pools.EVENTS)
    day, when = _relative(p.rng, said)
    return Block(
        (
            ("S", f"guess who {done.replace('my ', 'their ')}", True),
            ("O", "no way, when was this?", False),
            ("S", f"{when}, still buzzing", True),
        ),
        f"When did {{name}} {asked}?",
        (date_words(day),),
    )


def _when_ahead(p: _Pools, said: date) -> Block:
    noun, asked = p.pair(pools.OCCASIONS)
    day = said + timedelta(days=p.rng.randint(5, 40))
    return Block(
        (("S", f"{noun} got moved to {day.strftime('%B')} {day.day}, mark your calendars", True),),
        f"When is {asked}?",
        (date_words(day),),
    )


def _honeymoon(p: _Pools) -> Block:
    one, two = p.take(pools.PLACES), p.take(pools.PLACES)
    return Block(
        (
            ("O", "where did you two go on the honeymoon in the end?", False),
            ("S", f"first a week in {one}", True),
            ("S", f"then we took the ferry over to {two}, bliss", True),
        ),
        "Where did {name} go on the honeymoon?",
        ((one,), (two,)),
    )


def _garden(p: _Pools) -> Block:
    one, two = p.take(pools.VEG), p.take(pools.VEG)
    return Block(
        (
            ("O", "what are you growing in the veg patch this year?", False),
            ("S", f"{one} along the fence", True),
            ("S", f"and {two} by the shed, if the slugs leave any", True),
        ),
        "What is {name} growing in the veg patch?",
        ((one,), (two,)),
    )


def _brother(p: _Pools) -> Block:
    city = p.take(pools.CITIES)
    return Block(
        (
            ("S", "my brother moved abroad last month", True),
            ("O", "oh wow, where to?", False),
            ("S", f"{city}! he's teaching surfing there", True),
        ),
        "Where did {name}'s brother move to?",
        ((city,),),
    )


def _birthday(p: _Pools) -> Block:
    one, two = p.take(pools.GIFTS), p.take(pools.GIFTS)
    return Block(
        (
            ("O", "what did you get for your birthday?", False),
            ("S", f"a {one} from my parents", True),
            ("S", f"and my partner got me a {two}", True),
        ),
        "What did {name} get for their birthday?",
        ((one,), (two,)),
    )


def _kitten(p: _Pools) -> Block:
    kitten = p.take(pools.KITTENS)
    return Block(
        (
            ("O", "did you ever decide on a name for the kitten?", False),
            ("S", "took us a whole week to agree", True),
            ("S", f"{kitten}, after a cartoon we both loved", True),
        ),
        "What did {name} call the kitten?",
        ((kitten,),),
    )


FACTS: tuple[Callable[[_Pools], Block], ...] = (_film, _book, _sister, _team, _language, _drink)
WHENS = (_when_story, _when_asked_back, _when_ahead)
TWOS: tuple[Callable[[_Pools], Block], ...] = (_honeymoon, _garden, _brother, _birthday, _kitten)


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
    p = _Pools(rng)
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
    rng: random.Random, p: _Pools, planned: list[Session], kind: str, turn: int, asked: set[str]
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
