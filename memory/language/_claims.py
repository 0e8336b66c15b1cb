"""Facts as simple claims: "same subject, same predicate" detection, over sentences phrased in
the third person (`_third_person`).

The offline provider uses this to merge a new fact the way a careful person would: "alice
lives in Berlin" replaces "Alice lives in Paris", while "alice likes sushi" sits next to
"Alice likes pizza". Only predicates that hold one value at a time count as contradictions;
everything else is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memory.core.text import collapse
from memory.language._meaning import content_tokens

SELF = "@self"

# Predicates with one value at a time; the key groups phrasings of the same relation.
_FUNCTIONAL: list[tuple[str, str]] = [
    (r"(?:lives|is living|resides|is based|stays) (?:in|at)", "residence"),
    (r"(?:moved|has moved|relocated) to", "residence"),
    (r"(?:works|is working) (?:at|for)", "employer"),
    (r"(?:is employed|has a job) (?:at|by|with)", "employer"),
    (r"works as(?: an?)?", "occupation"),
    (r"(?:studies|is studying) at", "school"),
    (
        r"(?:is married to|is dating|is engaged to|has a (?:girlfriend|boyfriend|partner) named)",
        "partner",
    ),
    (r"(?:is|turned) (?=\d)", "age"),
    (r"was born (?:on|in the year)", "birth_date"),
    (r"was born in", "birthplace"),
    (r"(?:is called|is named|goes by|'s real name is|real name is)", "name"),
    (r"drives an?", "car"),
    (r"(?:uses|has) (?:the )?pronouns", "pronouns"),
]
_FUNCTIONAL_RE = [
    (re.compile(rf"\b{pattern}\b\s*", re.IGNORECASE), key) for pattern, key in _FUNCTIONAL
]
# "alice's favourite colour is green": the attribute itself is the key.
_ATTRIBUTE_RE = re.compile(
    r"^(?P<subject>.+?)['’]s (?P<attr>(?:favou?rite|real|full|middle|last|first|nick)?\s*\w+) "
    r"(?:is|are|was) (?P<value>.+)$",
    re.IGNORECASE,
)
# Opinions: "likes X" vs "doesn't like X" / "hates X" about the same X contradict.
_OPINION_RE = re.compile(
    r"^(?P<subject>.+?) (?P<verb>likes|loves|enjoys|adores|prefers|hates|dislikes|detests|"
    r"(?:does not|doesn't|doesnt|no longer) (?:like|love|enjoy))\s+(?P<value>.+)$",
    re.IGNORECASE,
)
_NEGATIVE = ("hate", "dislike", "detest", "does not", "doesn't", "doesnt", "no longer")

_PRONOUN_SUBJECT = {"he", "she", "they", "i"}
_PRONOUN_POSSESSIVE = {"his", "her", "their", "my"}


# First words that mean "the subject is missing": the statement starts with its verb.
@dataclass(frozen=True)
class Claim:
    """What a sentence asserts about its subject: key says which relation, value its object."""

    subject: str
    key: str
    value: str


def _subject_of(raw: str, names: list[str]) -> str:
    subject = raw.strip().lower()
    if subject in _PRONOUN_SUBJECT or any(subject == n.lower() for n in names if n):
        return SELF
    return subject


def claim_of(sentence: str, names: Iterable[str]) -> Claim | None:
    """The sentence's claim when its predicate is one we can compare, else None."""
    names = list(names)
    text = collapse(sentence).rstrip(".!?… ")
    attribute = _ATTRIBUTE_RE.match(text)
    if attribute:
        attr = collapse(attribute.group("attr").lower().replace("favourite", "favorite"))
        subject = _subject_of(attribute.group("subject"), names)
        return Claim(subject, f"attr:{attr}", _norm_value(attribute.group("value")))
    opinion = _OPINION_RE.match(text)
    if opinion:
        verb = opinion.group("verb").lower()
        polarity = "negative" if verb.startswith(_NEGATIVE) else "positive"
        subject = _subject_of(opinion.group("subject"), names)
        return Claim(subject, f"opinion:{_norm_value(opinion.group('value'))}", polarity)
    for pattern, key in _FUNCTIONAL_RE:
        match = pattern.search(text)
        if match is None or match.start() == 0:
            continue
        subject = _subject_of(text[: match.start()], names)
        return Claim(subject, key, _norm_value(text[match.end() :]))
    return None


def _norm_value(value: str) -> str:
    return " ".join(sorted(content_tokens(value))) or collapse(value).lower()


def contradicts(old: str, new: str, names: Iterable[str]) -> bool:
    """Same subject, same single-valued predicate, different value."""
    names = list(names)
    old_claim = claim_of(old, names)
    new_claim = claim_of(new, names)
    if old_claim is None or new_claim is None:
        return False
    return (
        old_claim.subject == new_claim.subject
        and old_claim.key == new_claim.key
        and old_claim.value != new_claim.value
    )


def same_claim(old: str, new: str, names: Iterable[str]) -> bool:
    """The same relation with the same value, however it is worded."""
    names = list(names)
    old_claim = claim_of(old, names)
    return old_claim is not None and old_claim == claim_of(new, names)
