"""Places named in chat, for questions that ask where a member has been.

"Which countries has Priya been to?" shares no word with "took this pic in Peru last year",
and a static embedding barely knows that Peru is a country. What English does give is the
shape of a place told in chat: a word of place or motion before a capitalised name ("in
Peru", "to the UK", "visited Cork", "back from Nagoya"). Months, weekdays and holidays take
the same shape ("in May", "from Monday on", "at Easter") and are not places. No list of places:
any capitalised name after such a word counts, so a town nobody here has heard of counts too.
"""

from __future__ import annotations

import re

# The words a place follows in a sentence ("in Hanoi", "moved to Bergen", "visited Nagoya").
PLACE_LEADS = (
    "in",
    "to",
    "from",
    "at",
    "visit",
    "visited",
    "visiting",
    "around",
    "across",
    "near",
    "through",
    "towards",
    "toward",
)
# Capitalised after such a word, yet never a place (a time, a holiday, the speaker).
NOT_PLACES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Christmas",
    "Easter",
    "Thanksgiving",
    "Halloween",
    "I",
)


def _first_letter_either_case(word: str) -> str:
    """`word` as a pattern that also matches it first in a sentence ("In Peru we ..."): the
    same in Python and in PostgreSQL, which has no flag scoped to part of a pattern."""
    return f"[{word[0].upper()}{word[0]}]{word[1:]}"


def place_pattern(word_start: str, word_end: str) -> str:
    """A place told in chat as a regular expression, written once for Python (`\\b`, `\\b`)
    and PostgreSQL (`\\m`, `\\M`, db/recall_statements.py): only their word boundaries differ."""
    leads = "|".join(_first_letter_either_case(lead) for lead in PLACE_LEADS)
    return (
        rf"{word_start}(?:{leads})\s+(?:the\s+)?"
        rf"(?!(?:{'|'.join(NOT_PLACES)}){word_end})[A-Z][A-Za-z]+"
    )


# A question asking where a member has been: "which cities has Sam visited?", "where did
# Alex travel?", "what countries has Priya been to?". Places in the plural (a list is asked
# for), "where" as the question's own word ("the show where she taught" asks what), and
# verbs of going somewhere.
_ASKS = re.compile(
    r"\b(?:countries|cities|states|places|locations|areas|regions|towns"
    r"|where\s+(?:has|have|had|did|does|do|is|was|were|are|will|would)"
    r"|visit(?:ed|s|ing)?|been to|travel(?:l?ed|l?ing|s))\b",
    re.IGNORECASE,
)

_PLACE = re.compile(place_pattern(r"\b", r"\b"))


def asks_for_places(question: str) -> bool:
    """The question asks where someone has been, lived or travelled."""
    return bool(_ASKS.search(question))


def names_a_place(text: str) -> bool:
    """The line names a place the way chat does ("we landed in Nagoya", "back from the UK")."""
    return bool(_PLACE.search(text))
