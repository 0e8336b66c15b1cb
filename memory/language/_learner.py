"""Durable facts a member states about themself, read from the grammar of their sentence.

"I work as a nurse at the children's hospital", "oh btw I play tennis at the club", "my
sister Mia is visiting", "I've taken up the viola": the subject is "I" (or "my <someone>
<Name>"), the verb says whether the statement lasts (a state or a habit in the present, a
past that leaves a state: "I moved to Madrid", "I grew up in Recife") or is an event of the
day ("I went to the museum", "I'm so tired today"), and the object is cut at the clause's
end and at details it cannot resolve. The result is the same clause in the third person,
with a subject key so a later statement on the same subject replaces it ("lives in").

There is no list of jobs, foods, places or hobbies: an unusual job or instrument is learned
like a common one, and a sentence whose grammar is not a statement about the speaker (a
question, a hypothetical, a quote, someone else's news) teaches nothing.
"""

from __future__ import annotations

import re

from memory.language._clauses import (
    at_hand,
    clauses,
    head_of,
    is_momentary,
    lowered,
    object_phrase,
    without_lead,
    without_trailing_time,
)
from memory.language._english import (
    DEGREE,
    GOING_ON,
    LASTING_PAST,
    MENTAL_VERBS,
    MODALS,
    NEGATIONS,
    NOT_NAMES,
    NUMBER_WORDS,
    REACTIONS,
    SOFT_ADVERBS,
    TAKEN_UP,
)
from memory.language._learned import Learned
from memory.language._learner_verbs import how_one_is, lasting_past, of_mind, progressive
from memory.language._statements import is_clean_fact
from memory.language._third_person import conjugate, is_adverb, is_past

_NAMED = re.compile(
    r"^[Mm]y (?P<rel>[a-z]+(?: [a-z]+){0,2}?)(?:['’]s name is| is called| is named| called"
    r"| named)? (?P<who>[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]+)\b"
)
_FAVORITE = re.compile(
    r"^[Mm]y (?:fav|fave|favorite|favourite) (?P<attr>[a-z]+(?: [a-z]+)?) (?:is|are) (?P<thing>.+)$"
)
_NOT_RELATION = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "has",
        "had",
        "got",
        "the",
        "a",
        "an",
        "and",
        "to",
        "of",
        "in",
        "at",
        "for",
        "with",
        "from",
        "on",
        "by",
        "about",
    ]
)
_PREFERENCE = frozenset({"love", "like", "enjoy", "adore", "hate", "dislike", "prefer"})
# Where a capitalised place or organisation is the one value of a subject: "live in".
_SINGLE_VALUED = {("live", "in"): "home", ("work", "at"): "employer", ("work", "for"): "employer"}
_SINGLE_VALUED_OBJECT = {("work", "as"): "job"}


def durable_statements(sentence: str, name: str) -> list[Learned]:
    """Every lasting fact one of `name`'s own sentences states about them, in the third
    person; nothing for events, moods, questions, or statements about someone else."""
    found: list[Learned] = []
    for clause in clauses(without_lead(sentence)):
        clause = without_lead(" ".join(clause)).split()
        if not clause:
            continue
        found.extend(_named(clause, name))
        learned = _favorite(clause, name) or _first_person(clause, name)
        if learned is not None:
            found.append(learned)
    return [item for item in found if is_clean_fact(item.statement, name)]


def _named(clause: list[str], name: str) -> list[Learned]:
    """ "my sister Mia is visiting" -> "<name>'s sister is called Mia"."""
    match = _NAMED.match(" ".join(clause))
    if match is None:
        return []
    relation, who = match.group("rel"), match.group("who")
    if _NOT_RELATION.intersection(relation.split()) or relation.startswith("fav"):
        return []
    if who in NOT_NAMES or who == name:
        return []
    return [Learned(f"named:{relation}", f"{name}'s {relation} is called {who}.")]


def _favorite(clause: list[str], name: str) -> Learned | None:
    match = _FAVORITE.match(" ".join(clause))
    thing = object_phrase(match.group("thing").split()) if match else None
    if match is None or thing is None:
        return None
    attr = match.group("attr")
    return Learned(f"favorite:{attr}", f"{name}'s favorite {attr} is {thing}.")


def _after_subject(clause: list[str]) -> list[str] | None:
    """The words after "I" with contractions opened ("I'm" -> "am"), None when the clause
    does not start with "I" or says "I'd"/"I'll"."""
    head = clause[0].lower().replace("’", "'")
    opened = {"i'm": ["am"], "im": ["am"], "i've": ["have"], "ive": ["have"], "i": []}
    if head not in opened:
        return None
    rest = [*opened[head], *clause[1:]]
    while (
        rest
        and rest[0].lower() not in NEGATIONS
        and (rest[0].lower() in SOFT_ADVERBS or is_adverb(rest[0]))
    ):
        rest = rest[1:]  # "I slowly formed", "I even got": the verb is what follows
    return rest


def _first_person(clause: list[str], name: str) -> Learned | None:
    rest = _after_subject(clause)
    if not rest or len(rest) < 2:
        return None
    verb, words = rest[0].lower().replace("’", "'"), rest[1:]
    if verb in {"don't", "dont"} or (verb == "do" and lowered(words)[0] == "not"):
        return _not_doing(words[1:] if verb == "do" else words, name)
    if verb == "have" and lowered(words)[:2] == ["never", "been"]:
        return _having(words, name)
    if verb in NEGATIONS or verb in MODALS or lowered(words)[0] in NEGATIONS:
        return None
    if verb in LASTING_PAST:
        return lasting_past(verb, words, name)
    if is_momentary(rest):
        return None
    if verb == "am":
        return _being(words, name)
    if verb == "have":
        return _having(words, name)
    if verb == "used" and lowered(words)[0] == "to":
        phrase = object_phrase(words[1:])
        return (
            Learned(f"used to:{head_of(phrase)}", f"{name} used to {phrase}.") if phrase else None
        )
    if verb in MENTAL_VERBS or is_past(verb) or not verb.isalpha():
        return None
    return _present(verb, words, name)


def _not_doing(words: list[str], name: str) -> Learned | None:
    """ "I don't eat meat" -> "<name> doesn't eat meat"; not "I don't know" or "I don't
    think so" (a thought, not a habit)."""
    if not words or is_momentary(words):
        return None
    verb = words[0].lower()
    if verb in MENTAL_VERBS or verb in MODALS or not verb.isalpha() or is_past(verb):
        return None
    if verb == "have" and lowered(words)[1:2] == ["to"]:  # "I don't have to stress": no habit
        return None
    rest = without_trailing_time(words[1:])
    phrase = object_phrase(rest) if rest else ""
    if phrase is None:
        return None
    key = f"likes:{head_of(phrase)}" if verb in _PREFERENCE else f"{verb}:{head_of(phrase)}"
    return Learned(key, f"{name} doesn't {verb} {phrase}".rstrip() + ".")


def _present(verb: str, words: list[str], name: str) -> Learned | None:
    """A habit or state in the present simple: "I play the oboe", "I live in Recife"."""
    phrase = object_phrase(words)
    if phrase is None or how_one_is(phrase):
        return None
    first = phrase.split()
    preposition = first[0].lower()  # the object's first word: "in" Recife, or "motivated"
    if verb in GOING_ON and (preposition.endswith(("ed", "ing")) or how_one_is(preposition)):
        return None  # "I stay motivated", "I keep trying", "I stay positive and ..."
    if preposition == "and" and len(first) > 1 and first[1].isalpha() and first[1].islower():
        phrase = " ".join([first[0], conjugate(first[1]), *first[2:]])  # "cooks and bakes"
    statement = f"{name} {conjugate(verb)} {phrase}."
    if verb in _PREFERENCE:
        return None if at_hand(phrase) else Learned(f"likes:{head_of(phrase)}", statement)
    single = _SINGLE_VALUED.get((verb, preposition))
    if single and len(first) > 1 and first[1][:1].isupper():
        return Learned(single, statement)
    if (verb, preposition) in _SINGLE_VALUED_OBJECT:
        return Learned(_SINGLE_VALUED_OBJECT[(verb, preposition)], statement)
    return Learned(f"{verb}:{head_of(phrase)}", statement)


def _being(words: list[str], name: str) -> Learned | None:
    """ "I'm a welder", "I'm from Lyon", "I'm allergic to mustard", "I'm 34 years old"."""
    while words and words[0].lower() in SOFT_ADVERBS:
        words = words[1:]
    if not words:
        return None
    lower = lowered(words)
    first = lower[0]
    if first in {"a", "an"} and len(lower) > 1 and lower[1] not in DEGREE:
        phrase = object_phrase(words)
        key = f"is:{phrase.lower()}" if phrase else ""
        return Learned(key, f"{name} is {phrase}.") if phrase else None
    if first in {"from", "into"}:
        phrase = object_phrase(words[1:])
        key = "origin" if first == "from" else f"likes:{head_of(phrase or '')}"
        return Learned(key, f"{name} is {first} {phrase}.") if phrase else None
    if first.isdigit() and lower[1:3] == ["years", "old"]:
        return Learned("age", f"{name} is {first} years old.")
    if first.endswith("ing"):
        return progressive(words, name)
    if len(words) == 1 and _identity_word(words[0]):
        return Learned(f"is:{first}", f"{name} is {words[0]}.")
    if first in REACTIONS:  # "I'm happy to help", "I'm off to the gym": the moment's
        return None
    if len(lower) > 2 and first.isalpha() and lower[1] in {"to", "of", "at", "in", "with", "about"}:
        phrase = object_phrase(words[2:])
        statement = f"{name} is {words[0]} {words[1]} {phrase}."
        return Learned(f"is:{first}:{head_of(phrase or '')}", statement) if phrase else None
    return None


def _identity_word(word: str) -> bool:
    """A lasting "I'm X" with no article: a nationality ("Italian", "Japanese", "Irish") or
    an adherent ("vegetarian"); a lowercase mood ("tired") is not."""
    if word[:1].isupper():
        return word.lower().endswith(("ian", "ese", "ish", "ean", "can")) and word not in NOT_NAMES
    # "left-handed", "blue-eyed": a compound of a trait, not a mood.
    return word.endswith("arian") or ("-" in word and word.endswith("ed"))


def _having(words: list[str], name: str) -> Learned | None:
    """ "I have two cats", "I have a dog named Max", "I've taken up the viola", "I've been
    learning the oboe for years", "I've lived here since 2019"."""
    lower = lowered(words)
    if lower[0] == "got":
        return _having(words[1:], name) if len(words) > 1 else None
    if lower[:2] == ["never", "been"] and len(words) > 2:
        phrase = object_phrase(words[2:])
        statement = f"{name} has never been {phrase}."
        return Learned(f"been:{head_of(phrase or '')}", statement) if phrase else None
    lasting = {"for", "since"} & set(lower)
    if lower[:2] == ["been", "involved"] and lower[2:3] in (["in"], ["with"]):
        phrase = object_phrase(words[3:])  # "I've been involved in a housing co-op": a pursuit
        statement = f"{name} has been involved {lower[2]} {phrase}."
        return Learned(f"involved:{head_of(phrase or '')}", statement) if phrase else None
    if lower[0] == "been" and len(lower) > 1 and not (lower[1].endswith("ing") or lower[1] == "to"):
        phrase = object_phrase(words[1:]) if lasting else None
        statement = f"{name} has been {phrase}."
        return Learned(f"has been:{head_of(phrase or '')}", statement) if phrase else None
    if lower[0] == "been" and len(lower) > 1:
        phrase = object_phrase(words[2:])
        verb = lower[1]
        if _of_mind(verb) or how_one_is(phrase or ""):
            return None  # "I've been feeling stressed", "I've been doing great"
        statement = f"{name} has been {verb} {phrase}."
        return Learned(f"has been {verb}:{head_of(phrase or '')}", statement) if phrase else None
    if lower[0] in TAKEN_UP and len(lower) > 1:
        phrase = object_phrase(words[1:])
        statement = f"{name} has {lower[0]} {phrase}."
        key = head_of(phrase or "").removeprefix("up ")
        return Learned(f"took up:{key}", statement) if phrase else None
    if is_past(lower[0]) and ({"for", "since"} & set(lower)):
        phrase = object_phrase(words[1:])
        statement = f"{name} has {lower[0]} {phrase}."
        return Learned(f"has {lower[0]}:{head_of(phrase or '')}", statement) if phrase else None
    return _owning(words, name)


def _of_mind(progressive_verb: str) -> bool:
    """ "feeling", "thinking", "wanting": a state of mind, not a pastime ("trying out" is)."""
    return progressive_verb != "trying" and of_mind(progressive_verb)


def _owning(words: list[str], name: str) -> Learned | None:
    lower = lowered(words)
    named = next((i for i, w in enumerate(lower) if w in {"named", "called"}), None)
    if lower[0] in {"a", "an"} and named is not None and named + 1 < len(words):
        who = words[named + 1]
        thing = " ".join(words[1:named])
        if who[:1].isupper() and who not in NOT_NAMES and thing and len(thing.split()) <= 3:
            return Learned(f"named:{thing.lower()}", f"{name} has {lower[0]} {thing} called {who}.")
        return None
    if lower[0] in NUMBER_WORDS or lower[0].isdigit():
        phrase = object_phrase(words)
        return (
            Learned(f"has:{head_of(phrase).split()[-1]}", f"{name} has {phrase}.")
            if phrase
            else None
        )
    return None
