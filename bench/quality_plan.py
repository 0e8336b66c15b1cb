"""How a quality chat is planned and written (bench/quality_data.py is the front): the
sessions' schedule, the statements planted in them with the questions they answer, and the
filler around them. Split from the front only to keep modules small.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from bench import quality_pools as pools

GUILD_ID = 700_000_000_000_000_001
FIRST_CHANNEL_ID = 700_000_000_000_001_001
FIRST_MEMBER_ID = 700_000_000_000_002_001
DISCORD_EPOCH_MS = 1_420_070_400_000
START = datetime(2023, 3, 6, tzinfo=UTC)
SESSION_HOURS = (9, 14, 19)  # up to three sessions a day, several hours apart
# Every kind has at least this many distinct plants before its words run out.
MAX_PER_KIND = 12
FACT_SLOTS = {
    "pet": pools.PET_NAMES,
    "job": pools.JOBS,
    "town": pools.TOWNS,
    "instrument": pools.INSTRUMENTS,
    "dish": pools.DISHES,
    "allergen": pools.ALLERGENS,
}
CHANGE_SLOTS = {"car": pools.CARS, "trip": pools.TRIPS, "hobbies": pools.HOBBIES}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class ChatLine:
    """One message as it was said."""

    message_id: int
    session: int
    channel_id: int
    author: str
    author_id: int
    at: datetime
    content: str


@dataclass(frozen=True)
class Session:
    """A burst of messages in one channel: the planted episode boundary."""

    index: int
    channel_id: int
    members: tuple[str, ...]
    message_ids: tuple[int, ...]
    start: datetime
    end: datetime

    @property
    def day(self) -> date:
        return self.start.date()


@dataclass(frozen=True)
class Question:
    """What a member asks the bot, and what would answer it."""

    kind: str
    asker: str
    subject: str
    text: str
    evidence_ids: tuple[int, ...] = ()
    # Every group must appear in the prompt; any alternative of a group will do.
    answer: tuple[tuple[str, ...], ...] = ()
    # Never-said questions: terms that nobody said (any echo of them is false evidence).
    absent: tuple[str, ...] = ()


@dataclass
class Plant:
    session: int
    author: str
    text: str
    key: object  # ties the message to the question(s) it answers


def date_words(day: date) -> tuple[str, ...]:
    """Ways a prompt may write a date: ISO, "May 7", "7 May", "May 7th"."""
    month = day.strftime("%B")
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return (
        day.isoformat(),
        f"{month} {day.day}",
        f"{day.day} {month}",
        f"{month} {day.day}{suffix}",
    )


def schedule(rng: random.Random, members: list[str], sessions: int, days: int) -> list[Session]:
    slots = rng.sample([(d, s) for d in range(days) for s in range(len(SESSION_HOURS))], sessions)
    out = []
    for index, (day, slot) in enumerate(sorted(slots)):
        start = START + timedelta(days=day, hours=SESSION_HOURS[slot], minutes=rng.randrange(50))
        who = tuple(rng.sample(members, min(len(members), rng.choice((2, 2, 3)))))
        out.append(Session(index, FIRST_CHANNEL_ID, who, (), start, start))
    return out


class Planner:
    """Plants statements in sessions and writes the questions they answer."""

    def __init__(self, rng: random.Random, members: list[str], sessions: list[Session]) -> None:
        self.rng = rng
        self.members = members
        self.sessions = sessions
        self.plants: list[Plant] = []
        self.questions: list[tuple[Question, list[object]]] = []
        self._used: dict[str, set[str]] = {}
        self._asked: dict[tuple[str, str], int] = {}  # (kind, member) -> questions

    def _take(self, pool: tuple[str, ...], kind: str) -> str:
        used = self._used.setdefault(kind, set())
        value = self.rng.choice([v for v in pool if v not in used])
        used.add(value)
        return value

    def _subject(self, kind: str, minimum_sessions: int = 1) -> tuple[str, list[int]]:
        """The member asked about least so far (ties broken at random) with enough sessions."""
        able = {
            name: [s.index for s in self.sessions if name in s.members] for name in self.members
        }
        able = {name: where for name, where in able.items() if len(where) >= minimum_sessions}
        if not able:
            raise ValueError("too few sessions for the questions asked; raise --sessions")
        asked = {name: self._asked.get((kind, name), 0) for name in able}
        name = self.rng.choice([n for n in able if asked[n] == min(asked.values())])
        self._asked[(kind, name)] = asked[name] + 1
        return name, able[name]

    def _slot(self, name: str, slots: dict[str, tuple[str, ...]]) -> str:
        """A kind of statement `name` has not made yet (one dog, one hometown per member)
        whose words are not used up (two of them: a change of mind needs two)."""
        used = self._used.setdefault(f"slots:{name}", set())
        fresh = {
            slot
            for slot, pool in slots.items()
            if len(set(pool) - self._used.get(slot, set())) >= 2
        }
        if not fresh:
            raise ValueError(f"per_kind is too large for the word pools (at most {MAX_PER_KIND})")
        left = {
            slot: len(set(slots[slot]) - self._used.get(slot, set()))
            for slot in slots
            if slot in fresh and slot not in used
        }
        if not left:  # a second hometown or car would make the answer ambiguous
            raise ValueError(f"{name} has no statement left to make: more members or sessions")
        # The kinds with the most words left first, so no kind runs dry before the others.
        slot = self.rng.choice(
            [slot for slot, count in left.items() if count == max(left.values())]
        )
        used.add(slot)
        return slot

    def _asker(self, subject: str) -> str:
        return self.rng.choice([m for m in self.members if m != subject])

    def _ask(self, kind: str, subject: str, text: str, keys: list[object], **extra: Any) -> None:
        asked = Question(kind, self._asker(subject), subject, text.format(name=subject), **extra)
        self.questions.append((asked, keys))

    def plant(self, session: int, author: str, text: str) -> object:
        key = object()
        self.plants.append(Plant(session, author, text, key))
        return key

    def single_fact(self) -> None:
        name, where = self._subject("single_fact")
        kind = self._slot(name, FACT_SLOTS)
        at = self.rng.choice(where)
        if kind == "pet":
            animal, pet = self._take(pools.ANIMALS, "animal"), self._take(pools.PET_NAMES, kind)
            text, answer = f"my {animal} is called {pet}, she is such a goofball", pet
            question = f"What is the name of {{name}}'s {animal}?"
        elif kind == "job":
            answer = self._take(pools.JOBS, kind)
            text = f"I just started working as a {answer} at the hospital across town"
            question = "What does {name} do for work?"
        elif kind == "town":
            answer = self._take(pools.TOWNS, kind)
            text = f"I grew up in {answer}, we lived right next to the old church"
            question = "Where did {name} grow up?"
        elif kind == "instrument":
            answer = self._take(pools.INSTRUMENTS, kind)
            text = f"I've been learning the {answer} for a few months, my fingers hurt"
            question = "Which instrument is {name} learning?"
        elif kind == "dish":
            answer = self._take(pools.DISHES, kind)
            text = f"honestly {answer} is my favourite food, I could eat it every day"
            question = "What is {name}'s favourite food?"
        else:
            answer = self._take(pools.ALLERGENS, kind)
            text = f"turns out I'm allergic to {answer}, found out the hard way"
            question = "What is {name} allergic to?"
        key = self.plant(at, name, text)
        self._ask("single_fact", name, question, [key], answer=((answer,),))

    def when(self) -> None:
        name, where = self._subject("when")
        at = self.rng.choice(where)
        said = self.sessions[at].day
        appointments = len(pools.APPOINTMENTS) - len(self._used.get("appointment", ()))
        if appointments and self.rng.random() < 0.25:
            noun, question = self._take_pair(pools.APPOINTMENTS, "appointment")
            day = said + timedelta(days=self.rng.randint(5, 40))
            text = f"{noun} is on {day.strftime('%B')} {day.day}, so nervous already"
            question = f"When {question}?"
        else:
            done, question = self._take_pair(pools.EVENTS, "event")
            day, when = self._relative(said)
            text = f"{when} I {done}"
            question = f"When did {{name}} {question}?"
        key = self.plant(at, name, text)
        self._ask("when", name, question, [key], answer=(date_words(day),))

    def _take_pair(self, pool: tuple[tuple[str, str], ...], kind: str) -> tuple[str, str]:
        first = self._take(tuple(a for a, _ in pool), kind)
        return first, dict(pool)[first]

    def _relative(self, said: date) -> tuple[date, str]:
        form = self.rng.choice(("yesterday", "two days ago", "last", "this morning", "on"))
        if form == "yesterday":
            return said - timedelta(days=1), "yesterday"
        if form == "two days ago":
            return said - timedelta(days=2), "two days ago"
        if form == "this morning":
            return said, "this morning"
        if form == "last":
            back = self.rng.randint(2, 7)
            day = said - timedelta(days=back)
            return day, f"last {WEEKDAYS[day.weekday()]}"
        day = said - timedelta(days=self.rng.randint(3, 20))
        return day, f"on {day.strftime('%B')} {day.day}"

    def across_sessions(self) -> None:
        name, where = self._subject("across_sessions", minimum_sessions=2)
        first, later = sorted(self.rng.sample(where, 2))
        kind = self._slot(name, CHANGE_SLOTS)
        if kind in ("car", "trip"):
            pool = pools.CARS if kind == "car" else pools.TRIPS
            old, new = self._take(pool, kind), self._take(pool, kind)
            if kind == "car":
                said = (
                    f"I'm pretty sure I'm buying a {old} next month",
                    f"changed my mind about the car, getting a {new} instead of a {old}",
                )
                question = "Which car is {name} getting?"
            else:
                said = (
                    f"we booked a trip to {old} for the autumn holidays",
                    f"the {old} trip is off, we're going to {new} instead",
                )
                question = "Where is {name} travelling for the autumn holidays?"
            answer: tuple[tuple[str, ...], ...] = ((new,),)
        else:
            one, two = self._take(pools.HOBBIES, kind), self._take(pools.HOBBIES, kind)
            said = (
                f"tried {one} for the first time today, loved it",
                f"signed up for a {two} course this week, wish me luck",
            )
            question, answer = "Which new hobbies has {name} taken up?", ((one,), (two,))
        keys = [self.plant(first, name, said[0]), self.plant(later, name, said[1])]
        self._ask("across_sessions", name, question, keys, answer=answer)

    def never_said(self) -> None:
        name, _ = self._subject("never_said")
        used = self._used.setdefault("never", set())
        text, term = self.rng.choice([t for t in pools.NEVER_TOPICS if t[1] not in used])
        used.add(term)
        self._ask("never_said", name, text, [], absent=(term,))


def _filler(rng: random.Random, author: str, others: list[str]) -> str:
    if others and rng.random() < 0.12:
        return rng.choice(pools.GREETINGS).format(other=rng.choice(others))
    return rng.choice(pools.FILLER)


def write_sessions(
    rng: random.Random, schedule: list[Session], plants: list[Plant]
) -> tuple[list[Session], list[ChatLine], dict[object, int]]:
    """Messages of every session: filler with the plants at random places."""
    sessions: list[Session] = []
    lines: list[ChatLine] = []
    ids: dict[object, int] = {}
    sequence = 0
    for session in schedule:
        who = list(session.members)
        said: list[tuple[str, str, object | None]] = [
            (author, _filler(rng, author, [m for m in who if m != author]), None)
            for author in (rng.choice(who) for _ in range(rng.randint(10, 18)))
        ]
        for plant in (p for p in plants if p.session == session.index):
            said.insert(rng.randrange(1, len(said) + 1), (plant.author, plant.text, plant.key))
        at = session.start
        mine: list[int] = []
        for author, text, key in said:
            at += timedelta(seconds=rng.randint(20, 240))
            sequence += 1
            millis = int(at.timestamp() * 1000) - DISCORD_EPOCH_MS
            message_id = (millis << 22) | (sequence & 0x3FFFFF)
            author_id = FIRST_MEMBER_ID + pools.NAMES.index(author)
            lines.append(
                ChatLine(message_id, session.index, session.channel_id, author, author_id, at, text)
            )
            mine.append(message_id)
            if key is not None:
                ids[key] = message_id
        first = next(line.at for line in lines if line.message_id == mine[0])
        sessions.append(
            Session(session.index, session.channel_id, session.members, tuple(mine), first, at)
        )
    return sessions, lines, ids


def spread_channels(schedule: list[Session], channels: int) -> list[Session]:
    """Sessions take turns over the channels (one channel unless asked)."""
    return [
        Session(s.index, FIRST_CHANNEL_ID + s.index % channels, s.members, (), s.start, s.end)
        for s in schedule
    ]
