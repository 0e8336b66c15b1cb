"""Offline learned facts: durable first-person statements, found by rules, never invented.

"I'm allergic to peanuts", "I moved to Madrid", "I grew up in Porto", "I work as a nurse",
"my daughter Mia", "my cat is called Tom", "I love climbing": each becomes one third-person
statement about the member who said it, with a subject key, so a later statement on the same
subject (moved from Porto to Madrid) supersedes the earlier one. A rule matches only where the
sentence starts (after "oh,", "btw" and the like), so "I" is its subject; `_statements` keeps
out jokes, quoted or reported speech and hypotheticals, and any result that is not a clean
sentence is dropped rather than stored half-made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.llm.offline._statements import clean_value, is_clean_fact, own_statements


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Interjections a statement may open with: "oh, I moved to Lisbon", "big news: I ...".
_LEAD = (
    r"^(?:[\w ]{1,20}:\s+)?(?:(?:oh|ah|well|yeah|yes|yep|so|btw|actually|also|and|but|honestly"
    r"|ok|okay|anyway|update|news|fun fact|guess what|fyi)\b[,:!.]*\s+)*"
)
_I_AM = r"I(?:['’]m| am)"
# A place or organisation is capitalised (the rules are case-insensitive, the name is not).
_CAP = r"(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]+(?:[ -](?:de |of |del |la )?[A-ZÀ-ÖØ-Þ][\w'’-]+){0,2})"
_REST = r"(?P<thing>[^.!?;,]+)"
_NAME = r"(?-i:(?P<who>[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]+))"
_FAMILY = (
    r"(?P<rel>daughter|son|wife|husband|partner|girlfriend|boyfriend|fiancée?|sister|brother"
    r"|mom|mum|mother|dad|father|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin"
    r"|niece|nephew|best friend|roommate)"
)
_PET = r"(?P<rel>cat|dog|puppy|kitten|parrot|rabbit|bunny|hamster|horse|turtle|snake|lizard)"
_NAMED = r"(?:['’]s name is| is called| is named| called| named|,)? "

_ALLERGENS = _words(
    "peanuts peanut nuts shellfish shrimp prawns fish eggs egg milk dairy lactose gluten wheat"
    " soy sesame penicillin amoxicillin aspirin ibuprofen sulfa bees stings wasps cats dogs"
    " pollen dust mites mold latex strawberries kiwi mango avocado celery mustard sulfites grass"
    " hay horses feathers nickel iodine antibiotics ragweed pineapple tomatoes almonds walnuts"
    " cashews pistachios hazelnuts crab lobster seafood corn chocolate coconut oats bananas"
    " apples peaches cherries garlic onions"
)
_JOBS = _words(
    "nurse teacher doctor developer programmer engineer student lawyer chef cook designer pilot"
    " firefighter accountant electrician plumber carpenter musician writer farmer dentist"
    " pharmacist architect photographer barista paramedic therapist librarian mechanic"
    " scientist researcher professor veterinarian vet translator journalist artist painter"
    " baker waiter waitress cashier counselor consultant"
)
_INSTRUMENTS_AND_GAMES = _words(
    "guitar piano drums violin bass cello flute saxophone trumpet ukulele harp clarinet chess"
    " tennis soccer football basketball volleyball golf hockey baseball badminton rugby"
    " cricket squash pool darts poker"
)
_NOT_NAMES = _words(
    "I The A An And But So Is Was Just Really Very My Our This That It He She They We You"
    " Today Yesterday Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
)


@dataclass(frozen=True)
class Rule:
    """One phrasing: the subject key and the sentence it makes, from the named groups."""

    pattern: re.Pattern[str]
    subject: str
    template: str
    check: Callable[[dict[str, str]], bool] = lambda values: True


Check = Callable[[dict[str, str]], bool]


def _rule(pattern: str, subject: str, template: str, check: Check | None = None) -> Rule:
    compiled = re.compile(_LEAD + pattern, re.IGNORECASE)
    return Rule(compiled, subject, template, check or (lambda values: True))


def _last_word_in(words: frozenset[str], group: str = "thing") -> Check:
    return lambda values: values[group].split()[-1].lower() in words


def _a_name(values: dict[str, str]) -> bool:
    return values["who"] not in _NOT_NAMES


_RULES: list[Rule] = [
    _rule(
        rf"{_I_AM} (?:(?:very|really|severely|super|deathly) )?allergic to {_REST}",
        "health:allergy:{thing}",
        "{name} is allergic to {thing}.",
        _last_word_in(_ALLERGENS),
    ),
    _rule(
        rf"I (?:just |recently |finally )?(?:moved|relocated) (?:back )?to (?P<place>{_CAP})",
        "home",
        "{name} lives in {place}.",
    ),
    _rule(
        rf"(?:I (?:live|currently live)|{_I_AM} (?:living|based)) in (?P<place>{_CAP})",
        "home",
        "{name} lives in {place}.",
    ),
    _rule(rf"I grew up in (?P<place>{_CAP})", "origin", "{name} grew up in {place}."),
    _rule(rf"I was born in (?P<place>{_CAP})", "birthplace", "{name} was born in {place}."),
    _rule(rf"{_I_AM} (?:originally )?from (?P<place>{_CAP})", "origin", "{name} is from {place}."),
    _rule(
        r"I work as (?P<article>an?) (?P<thing>[^.!?;,]+?)(?= (?:at|in|for|with|from)\b|$|[.!?;,])",
        "job",
        "{name} works as {article} {thing}.",
    ),
    _rule(rf"I work (?:at|for) (?P<org>{_CAP})", "employer", "{name} works at {org}."),
    _rule(
        rf"{_I_AM} (?P<article>an?) (?P<thing>[a-z]+)(?=$|[,.!;]| (?:at|in|for|with|from)\b)",
        "job",
        "{name} is {article} {thing}.",
        _last_word_in(_JOBS),
    ),
    _rule(
        rf"{_I_AM} (?:a )?(?P<thing>vegetarian|vegan|pescatarian)\b",
        "diet",
        "{name} is {thing}.",
    ),
    _rule(rf"{_I_AM} (?P<age>\d{{1,2}}) years old", "age", "{name} is {age} years old."),
    _rule(
        rf"my {_FAMILY}{_NAMED}{_NAME}", "family:{rel}", "{name}'s {rel} is called {who}.", _a_name
    ),
    _rule(rf"my {_PET}{_NAMED}{_NAME}", "pet:{rel}", "{name} has a {rel} called {who}.", _a_name),
    _rule(
        rf"I have an? {_PET} (?:named|called) {_NAME}",
        "pet:{rel}",
        "{name} has a {rel} called {who}.",
        _a_name,
    ),
    _rule(
        r"I (?:play|have played) (?P<the>the )?(?P<thing>[a-z]+)\b",
        "plays:{thing}",
        "{name} plays {the}{thing}.",
        _last_word_in(_INSTRUMENTS_AND_GAMES),
    ),
    _rule(
        r"I speak (?P<lang>(?-i:[A-Z][a-z]+)(?:(?: and |, )(?-i:[A-Z][a-z]+))*)",
        "speaks:{lang}",
        "{name} speaks {lang}.",
    ),
    _rule(
        r"my fav(?:ou?rite)? (?P<attr>[a-z]+(?: [a-z]+)?) is " + _REST,
        "favorite:{attr}",
        "{name}'s favorite {attr} is {thing}.",
    ),
]
# Likes and dislikes are matched separately: their object runs to a clause boundary.
_LIKES = re.compile(
    _LEAD + rf"(?:I (?:really |absolutely )?(?:love|adore)|{_I_AM} (?:really )?into) {_REST}",
    re.IGNORECASE,
)
_HATES = re.compile(
    _LEAD + r"I (?:really )?(?:hate|can['’]t stand|cannot stand) " + _REST, re.IGNORECASE
)
# Where a liked thing ends: a conjunction that starts a new clause ("and we...", "because").
_CLAUSE = re.compile(
    r"\s+(?:and\s+(?:i|we|he|she|they|it|you|my|the|then|now)\b|so|but|because|since|now"
    r"|when|though|although|lately)\b.*$",
    re.IGNORECASE,
)
# Things of the moment, not lasting tastes: "I love the new update".
_TRANSIENT = re.compile(r"\b(?:new|latest|current|today|tonight|update|episode)\b", re.I)
_CLAUSE_START = re.compile(r"^(?:how|what|when|that|the way|being|where|why|who|it)\b", re.I)


def _object(raw: str) -> str | None:
    """A liked or hated thing, cut at the next clause; None when it is a clause itself."""
    thing = _CLAUSE.sub("", raw).strip()
    if _CLAUSE_START.match(thing) or _TRANSIENT.search(thing):
        return None
    return clean_value(thing, max_words=4)


def _preferences(sentence: str, name: str) -> list[tuple[str, str]]:
    found = []
    for pattern, verb in ((_LIKES, "loves"), (_HATES, "hates")):
        match = pattern.match(sentence)
        thing = _object(match.group("thing")) if match else None
        if thing:
            found.append((f"likes:{thing.lower()}", f"{name} {verb} {thing}."))
    return found


def _facts(sentence: str, name: str) -> list[tuple[str, str]]:
    """(subject key, statement) for each rule the sentence states, clean sentences only."""
    found = _preferences(sentence, name)
    for rule in _RULES:
        match = rule.pattern.match(sentence)
        if match is None:
            continue
        values = {k: v for k, v in match.groupdict().items() if v is not None}
        if "thing" in values:
            thing = clean_value(_CLAUSE.sub("", values["thing"]), max_words=4)
            if thing is None:
                continue
            values["thing"] = thing
        values = {k: v.strip() if k != "the" else v for k, v in values.items()}
        if not rule.check(values):
            continue
        key = rule.subject.format(**{k: v.lower() for k, v in values.items()})
        found.append((key, rule.template.format(name=name, **{"the": "", **values})))
    return [(key, text) for key, text in found if is_clean_fact(text, name)]


def learn(messages: Sequence[Mapping[str, Any]], targets: Mapping[int, str]) -> list[dict]:
    """Statements members made about themselves, as `LearnedItem` dicts (user_id as text)."""
    found: dict[tuple[int, str], dict] = {}
    for message in messages:
        author = int(str(message.get("author_id")))
        name = targets.get(author)
        if name is None:
            continue
        for sentence in own_statements(str(message.get("content") or "")):
            for key, statement in _facts(sentence, name):
                found[(author, key)] = {
                    "user_id": str(author),
                    "subject": key,
                    "statement": statement[0].upper() + statement[1:],
                }
    return list(found.values())
