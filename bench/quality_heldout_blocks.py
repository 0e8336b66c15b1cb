"""The exchanges that plant an answer in a held-out chat (bench/quality_heldout.py places them):
each says a fact, a date or a two-message answer in its own words, with the question asked about
it and the words that answer it. Kept apart from the chat's assembly: this is what is said, that
is where and when.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from bench import quality_heldout_pools as pools
from bench.quality_plan import WEEKDAYS, date_words


@dataclass(frozen=True)
class Block:
    """Lines said together: (speaker: "S" the subject or "O" the other, text, evidence?)."""

    lines: tuple[tuple[str, str, bool], ...]
    question: str
    answer: tuple[tuple[str, ...], ...]


class WordPicker:
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


def _film(p: WordPicker) -> Block:
    film = p.take(pools.FILMS)
    return Block(
        (
            ("O", "seen anything good at the cinema lately?", False),
            ("S", f"{film} - cried at the end, no shame", True),
        ),
        "What film did {name} see at the cinema?",
        ((film,),),
    )


def _book(p: WordPicker) -> Block:
    book = p.take(pools.BOOKS)
    return Block(
        (
            ("O", "what are you reading at the moment?", False),
            ("S", f"{book}, a friend lent it to me and I can't put it down", True),
        ),
        "What has {name} been reading?",
        ((book,),),
    )


def _sister(p: WordPicker) -> Block:
    sister = p.take(pools.SISTERS)
    return Block(
        (("S", f"my sister {sister} finally got her pilot licence!!", True),),
        "What is the name of {name}'s sister?",
        ((sister,),),
    )


def _team(p: WordPicker) -> Block:
    team = p.take(pools.TEAMS)
    return Block(
        (
            ("O", "who do you support, football-wise?", False),
            ("S", f"{team}, since I was six. it's a curse", True),
        ),
        "Which football team does {name} support?",
        ((team,),),
    )


def _language(p: WordPicker) -> Block:
    language = p.take(pools.LANGUAGES)
    return Block(
        (
            ("O", "how's the language app going?", False),
            ("S", f"{language} is so much harder than I thought, the verbs!", True),
        ),
        "Which language is {name} learning?",
        ((language,),),
    )


def _drink(p: WordPicker) -> Block:
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


def _when_story(p: WordPicker, said: date) -> Block:
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


def _when_asked_back(p: WordPicker, said: date) -> Block:
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


def _when_ahead(p: WordPicker, said: date) -> Block:
    noun, asked = p.pair(pools.OCCASIONS)
    day = said + timedelta(days=p.rng.randint(5, 40))
    return Block(
        (("S", f"{noun} got moved to {day.strftime('%B')} {day.day}, mark your calendars", True),),
        f"When is {asked}?",
        (date_words(day),),
    )


def _honeymoon(p: WordPicker) -> Block:
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


def _garden(p: WordPicker) -> Block:
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


def _brother(p: WordPicker) -> Block:
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


def _birthday(p: WordPicker) -> Block:
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


def _kitten(p: WordPicker) -> Block:
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


# A block made from the word pools alone (a date block also takes the day it is said).
_Maker = Callable[[WordPicker], Block]
FACTS: tuple[_Maker, ...] = (_film, _book, _sister, _team, _language, _drink)
WHENS = (_when_story, _when_asked_back, _when_ahead)
TWOS: tuple[_Maker, ...] = (_honeymoon, _garden, _brother, _birthday, _kitten)
