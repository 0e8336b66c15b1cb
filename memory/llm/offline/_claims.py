"""Facts as simple claims: third-person phrasing and "same subject, same predicate" detection.

The offline provider uses this to merge a new fact the way a careful person would: "alice
lives in Berlin" replaces "Alice lives in Paris", while "alice likes sushi" sits next to
"Alice likes pizza". Only predicates that hold one value at a time count as contradictions;
everything else is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memory.core.text import collapse, content_tokens, end_sentence

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
_VERB_START = re.compile(
    r"^(?:is|was|has|had|likes|loves|hates|enjoys|lives|works|studies|plays|owns|speaks|"
    r"prefers|wants|needs|knows|goes|uses|drives|moved|got|gets|became|can|can't|cannot|"
    r"does|doesn't|did|didn't|will|won't|would|used to|never|always|am|are)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = [
    (re.compile(r"^i['’]m\b", re.IGNORECASE), "{name} is"),
    (re.compile(r"^i am\b", re.IGNORECASE), "{name} is"),
    (re.compile(r"^i was\b", re.IGNORECASE), "{name} was"),
    (re.compile(r"^i have\b", re.IGNORECASE), "{name} has"),
    (re.compile(r"^i['’]ve\b", re.IGNORECASE), "{name} has"),
    (re.compile(r"^i do not\b|^i don['’]t\b", re.IGNORECASE), "{name} does not"),
    (re.compile(r"^i can\b", re.IGNORECASE), "{name} can"),
    (re.compile(r"^i will\b|^i['’]ll\b", re.IGNORECASE), "{name} will"),
]
_FIRST_PERSON_VERB = re.compile(r"^i (?P<verb>[a-z]+)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """What a sentence asserts about its subject: key says which relation, value its object."""

    subject: str
    key: str
    value: str


_UNCHANGED_VERBS = frozenset(
    {
        "can",
        "could",
        "will",
        "would",
        "should",
        "must",
        "may",
        "might",
        "did",
        "went",
        "got",
        "had",
        "made",
        "bought",
        "left",
        "took",
        "came",
        "saw",
        "met",
        "found",
        "lost",
        "won",
        "began",
        "became",
        "broke",
        "ran",
        "sold",
        "told",
        "thought",
        "knew",
        "grew",
        "used",
        "never",
        "always",
        "also",
        "just",
        "still",
        "really",
        "finally",
        "recently",
        "already",
    }
)


def _third_person_verb(verb: str) -> str:
    """ "play" -> "plays", "watch" -> "watches", "study" -> "studies"; past tense unchanged."""
    lowered = verb.lower()
    if lowered in _UNCHANGED_VERBS or lowered.endswith("ed"):
        return lowered
    if lowered.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lowered + "es"
    if lowered.endswith("y") and len(lowered) > 1 and lowered[-2] not in "aeiou":
        return lowered[:-1] + "ies"
    return lowered + "s"


def third_person(statement: str, name: str, aliases: Iterable[str] = ()) -> str:
    """Phrase a fact about `name` as one third-person sentence starting with a subject.

    "likes pizza" -> "alice likes pizza."; "I'm a nurse" -> "alice is a nurse.";
    "her cat is Tom" -> "alice's cat is Tom."; "alice lives in Paris" stays as written.
    Names keep the case the member wrote them in.
    """
    text = collapse(statement).strip(" \"'“”")
    if not text:
        return ""
    first = text.split(" ", 1)[0]
    lowered_first = first.lower().strip(",:;")
    names = [name, *aliases]
    if any(text.lower().startswith(candidate.lower()) for candidate in names if candidate):
        return end_sentence(text)
    for pattern, replacement in _FIRST_PERSON:
        if pattern.match(text):
            return end_sentence(pattern.sub(replacement.format(name=name), text, count=1))
    verb = _FIRST_PERSON_VERB.match(text)
    if verb and lowered_first == "i":
        rest = text[verb.end() :]
        return end_sentence(f"{name} {_third_person_verb(verb.group('verb'))}{rest}")
    if lowered_first in _PRONOUN_SUBJECT:
        rest = text[len(first) :]
        if lowered_first == "they":  # "they are" -> "alice is" reads better than "alice are"
            rest = re.sub(r"^ are\b", " is", rest)
            rest = re.sub(r"^ have\b", " has", rest)
        return end_sentence(f"{name}{rest}")
    if lowered_first in _PRONOUN_POSSESSIVE:
        return end_sentence(f"{name}'s{text[len(first) :]}")
    if _VERB_START.match(text):
        return end_sentence(f"{name} {text}")
    return end_sentence(text)


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
