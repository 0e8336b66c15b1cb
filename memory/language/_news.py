"""How much a sentence tells of its speaker's life, from its grammar: a first-person subject
with a past tense ("I got the job", "we moved", "my sister had her baby") is news, "I'm
exhausted" / "I feel great" is a mood, and a lasting statement ("I work as a nurse") is a fact.
No list of life events or feelings: any verb in the past and any adjective count the same."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memory.language._clauses import clauses, lowered, without_lead
from memory.language._english import (
    DEICTIC,
    DETERMINERS,
    MODALS,
    NEGATIONS,
    SOFT_ADVERBS,
)
from memory.language._learner import durable_statements
from memory.language._third_person import is_past

_SELF = frozenset({"i", "we", "i'm", "im", "we're", "i've", "we've"})
_POSSESSIVE = frozenset({"my", "our"})
_FEELING = frozenset({"feel", "feeling", "felt"})
# "I'm so tired": here "so" is a degree, not the conjunction that ends a clause.
_DEGREE = re.compile(
    r"\b(i['’]?m|i am|feel|feeling|felt)\s+(?:so+|very|really|super|kinda)\s+", re.I
)


@dataclass(frozen=True)
class PersonalNews:
    """What a sentence says of its speaker: events, moods, lasting facts (counts)."""

    events: int = 0
    moods: int = 0
    facts: int = 0


@lru_cache(maxsize=8192)
def personal_news(sentence: str) -> PersonalNews:
    events = moods = 0
    for clause in clauses(without_lead(_DEGREE.sub(r"\1 ", sentence))):
        words = lowered(clause)
        if _dropped_subject(words):
            events += 1
            continue
        verb_at = _verb_index(words)
        if verb_at is None or verb_at >= len(words):
            continue
        verb = words[verb_at]
        if verb in NEGATIONS or verb in MODALS:
            continue
        if words[0] in {"i'm", "im"} or verb in _FEELING or verb == "am":
            moods += _is_mood(words[verb_at + 1 :])
        elif is_past(verb) or (verb in {"got", "have", "has", "had"} and verb_at > 0):
            events += 1
    facts = len(durable_statements(sentence, "they"))
    return PersonalNews(events=events, moods=moods, facts=facts)


# A question about what changed for someone: "what new sports has Ines picked up?", "what
# has Sam been up to lately?", "anything new with Alex?" (a perfect tense or a word of newness).
_CHANGE = re.compile(
    r"\b(?:new|newly|recently|lately|latest|nowadays|these days|up to)\b"
    r"|\bha(?:s|ve)\s+(?:\w+\s+){0,2}?(?:\w+ed|\w+en|been|begun|got|started)\b",
    re.IGNORECASE,
)


def asks_what_is_new(question: str) -> bool:
    """The question asks what happened or changed, so news ranks before lasting facts."""
    return bool(_CHANGE.search(question))


def is_news(text: str) -> bool:
    """The line tells something that happened to its speaker (not only a lasting fact)."""
    return personal_news(text).events > 0


def _dropped_subject(words: list[str]) -> bool:
    """Chat drops "I": "tried kitesurfing last week", "training for the marathon"."""
    if len(words) < 3 or not words[0].isalpha():
        return False
    verb_like = is_past(words[0]) or (words[0].endswith("ing") and len(words[0]) > 5)
    return verb_like and words[1].isalpha() and words[0] not in DEICTIC


def _verb_index(words: list[str]) -> int | None:
    """Where the verb of a first-person clause is: after "I"/"we", or after "my <noun>"."""
    if not words:
        return None
    if words[0] in _SELF:
        index = 0 if words[0] in {"i'm", "im", "we're"} else 1
    elif words[0] in _POSSESSIVE and len(words) > 2:
        index = 2
    else:
        return None
    if words[0] in {"i've", "we've"}:
        index = 1
    while index < len(words) and words[index] in SOFT_ADVERBS:
        index += 1
    return index


def _is_mood(rest: list[str]) -> int:
    """ "so tired", "really excited about it", "great": an adjective, not "a nurse"."""
    words = [word for word in rest if word not in SOFT_ADVERBS and word not in {"so", "very"}]
    if not words:
        return 0
    first = words[0]
    if first in DETERMINERS or first in DEICTIC or not first.isalpha() or first.endswith("ing"):
        return 0
    return 1
