"""Query expansion by question concept: the words answers to common questions are made of.

Full-text search finds the question's words; an answer often has none of them. "What does
Sam do for work?" is answered by "I just started as a nurse", "which hobbies has Sam taken
up?" by "signed up for a climbing class". For the commonest kinds of question about a person
(work, hobbies, home, pets, family, travel, health, studies) a small thesaurus lists the
words answers to them typically hold. A question that asks about one of these concepts
brings that concept's words along as extra search terms, each weighted by its own rarity
like any word but at RELATED_WEIGHT of it and only as a whole word, so the question's own
words always count more, and an expansion word said everywhere counts little.

Deliberately small and general (English only: a guild in another language simply gets no
expansion): a word belongs here only if it is what people commonly say when they talk about
the concept, never a particular answer. Embeddings, when configured, do this job for every
concept; this is the part that works without them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.core.text import wordset
from memory.recall._forms import other_forms

# An expansion word counts this share of its rarity weight (a question's own word: all of it).
RELATED_WEIGHT = 0.5
# At most this many expansion words join one search (the rarest in the guild first).
MAX_RELATED = 8


@dataclass(frozen=True, slots=True)
class Concept:
    """What a question asks about: the words (or phrases) that say it is asked, and the words
    answers to it typically contain."""

    name: str
    asked_by: re.Pattern[str]
    answered_with: frozenset[str]
    idioms: re.Pattern[str] | None = None  # phrases whose words say only the concept


def _concept(name: str, asked_by: str, answered_with: str, idioms: str = "") -> Concept:
    """`asked_by` and `idioms`: comma-separated words or phrases (regular expressions) asking
    about it; an idiom's words ("taken up", "do for a living") are not searched for
    themselves ("took" would find "took the kids to the zoo")."""
    return Concept(
        name,
        _pattern(f"{asked_by}, {idioms}" if idioms else asked_by),
        wordset(answered_with),
        _pattern(idioms) if idioms else None,
    )


def _pattern(phrases: str) -> re.Pattern[str]:
    alternatives = "|".join(part.strip() for part in phrases.split(","))
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


CONCEPTS = (
    _concept(
        "work",
        r"work, works, job, jobs, career, profession, occupation, employer, workplace",
        """working worked works job jobs hired employed career office shift shifts boss
        colleague colleagues coworker coworkers promotion promoted salary interview intern
        internship company manager clients""",
        r"do for a living, (?:does|do|did) for work",
    ),
    _concept(
        "hobby",
        r"hobby, hobbies, pastime, pastimes",
        """tried trying started starting learning learn class classes course courses lesson
        lessons joined club practice practise practicing practising signed beginner
        training hobby hobbies""",
        r"free time, spare time, for fun, (?:take|takes|taking|took|taken) up,"
        r" (?:pick|picks|picked|picking) up, (?:get|gets|got|gotten) into",
    ),
    _concept(
        "home",
        r"live, lives, living, lived, home, hometown, move, moved, moving, house, flat,"
        r" apartment, grow up, grew up",
        """moved moving live living lived flat apartment house rent neighbourhood
        neighborhood town city grew born""",
    ),
    _concept(
        "pet",
        r"pet, pets, animal, animals",
        """dog dogs cat cats puppy kitten adopted vet called named""",
    ),
    _concept(
        "family",
        r"family, parents, kids, children, siblings, married, relatives",
        """mom mum dad mother father sister brother son daughter kids wife husband partner
        wedding baby married parents""",
    ),
    _concept(
        "travel",
        r"travel, travels, travelling, traveling, trip, trips, holiday, holidays, vacation,"
        r" vacations",
        """flight flew flying booked trip visiting visit visited hotel abroad travelling
        traveling holiday holidays vacation""",
    ),
    _concept(
        "health",
        r"health, healthy, sick, ill, illness, allergy, allergies, allergic, injury, injured,"
        r" doctor, hospital",
        """allergic allergy doctor hospital surgery sick flu injured broke diagnosed
        medication pills therapy dentist""",
    ),
    _concept(
        "study",
        r"study, studies, studying, studied, school, university, uni, college, degree,"
        r" student, major",
        """studying studied university uni college degree class classes exam exams course
        thesis semester major graduated school""",
    ),
)


def idiom_words(question: str) -> set[str]:
    """The words of the concept idioms in `question` ("taken up": taken, up), lowercased."""
    found: set[str] = set()
    for concept in CONCEPTS:
        if concept.idioms is not None:
            for match in concept.idioms.finditer(question):
                found.update(match.group(0).lower().split())
    return found


def related_words(question: str, own: list[str]) -> list[str]:
    """The expansion words of every concept `question` asks about, that are not among its own
    search words `own` (in thesaurus order; the search keeps the MAX_RELATED rarest)."""
    taken = set(own)
    related: dict[str, None] = {}
    for concept in CONCEPTS:
        if concept.asked_by.search(question):
            for word in sorted(concept.answered_with):
                if word not in taken:
                    related.setdefault(word, None)
    return list(related)


def without_idioms(question: str, words: list[str]) -> list[str]:
    """A question's search words without those of its concept idioms (and their other verb
    forms): "which hobbies has Sam taken up?" searches "hobbies", not "taken" or "took".
    Unchanged when nothing else would be left."""
    idiom = idiom_words(question)
    if not idiom:
        return words
    idiom |= {form for word in idiom for form in other_forms(word)}
    return [word for word in words if word not in idiom] or words
