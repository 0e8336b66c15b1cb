"""First person to third person, for statements members make about themselves.

One rewrite for every caller: a command ("remember that I like tea"), the facts merge checks
and the offline learner all turn "I'm a nurse" into "alice is a nurse" the same way. A
statement that starts with its verb ("likes pizza") or a third-person pronoun ("she has a
cat") is about `name` too, unless `name` is only the speaker. No sentence end is added:
callers that store a sentence end it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory.core.text import collapse, wordset
from memory.language._english import SOFT_ADVERBS

_MODALS = wordset(
    "can could will would shall should may might must did had was wasn't didn't can't won't"
    " couldn't wouldn't shouldn't"
)
# Past tenses take no -s: "I went" is "alice went". ("I were" is what is left of "my wife and
# I were": a group's past, never one member's.)
_PAST = wordset(
    "were went got made had saw came took gave bought ate drank ran left found thought told"
    " became began wrote met read said knew grew flew drove rode sang swam won lost sold"
    " sent spent built broke chose fell felt forgot heard held kept led paid put quit set"
    " sat slept spoke stood taught understood used"
)
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "'m": "is"}
# The learner's soft adverbs ("really", "now") and those that do change what is said, but are
# no verb either ("never", "only").
_NOT_VERBS = SOFT_ADVERBS | wordset("never even only already")
# An adverb before the verb ("I slowly formed", "I truly believe"): a word of five letters or
# more ending in -ly (or chat's -ley: "I absolutley love"), except the verbs that end so.
_LY_ADVERB = r"(?!(?:supply|comply|multiply|apply|reply|volley)\b)\w{3,}le?y"


def is_adverb(word: str) -> bool:
    """An adverb that may stand between "I" and the verb: "really", "even", "slowly" (a word
    of five letters or more ending in -ly, or -ley as chat spells some), not "reply" or
    "fly"."""
    lower = word.lower()
    return lower in _NOT_VERBS or re.fullmatch(_LY_ADVERB, lower) is not None


_PRONOUN_SUBJECT = frozenset({"he", "she", "they"})
_PRONOUN_POSSESSIVE = frozenset({"his", "her", "their"})
# First words that mean "the subject is missing": the statement starts with its verb.
_VERB_START = re.compile(
    r"^(?:is|was|has|had|likes|loves|hates|enjoys|lives|works|studies|plays|owns|speaks|"
    r"prefers|wants|needs|knows|goes|uses|drives|moved|got|gets|became|can|can't|cannot|"
    r"does|doesn't|did|didn't|will|won't|would|used to|never|always|are)\b",
    re.IGNORECASE,
)


def _looks_past(word: str) -> bool:
    return word.endswith("ed") and not word.endswith("eed") and len(word) > 3


def is_past(word: str) -> bool:
    """A past tense or participle: "moved", "went", "taught" (not "need", "feed")."""
    lower = word.lower()
    return lower in _PAST or _looks_past(lower)


def conjugate(word: str) -> str:
    """The verb after "I" as it follows a name: "like" -> "likes", "am" -> "is"; past tenses,
    modals and anything not a plain lowercase word stay as they are."""
    lower = word.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _MODALS or lower in _PAST or _looks_past(lower):
        return word
    if not word.isalpha() or not word.islower():
        return word
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _subject_start(text: str, name: str) -> str:
    """A leading "she"/"her"/verb means the statement is about `name`: say so."""
    first, _, rest = text.partition(" ")
    lowered = first.lower().strip(",:;")
    if lowered in _PRONOUN_SUBJECT:
        if lowered == "they":  # "they are" -> "alice is" reads better than "alice are"
            rest = re.sub(r"^are\b", "is", rest)
            rest = re.sub(r"^have\b", "has", rest)
        return f"{name} {rest}".rstrip()
    if lowered in _PRONOUN_POSSESSIVE:
        return f"{name}'s {rest}".rstrip()
    if _VERB_START.match(text):
        return f"{name} {text}"
    return text


def _first_person(text: str, name: str) -> str:
    def subject(match: re.Match[str]) -> str:
        adverb, word = match.group("adverb"), match.group("verb")
        if adverb:
            return f"{name} {adverb} {conjugate(word)}"
        return f"{name} {conjugate(word)}"

    text = re.sub(r"\b[Ii]['’]m\b|\b[Ii]m\b|\b[Ii] am\b", f"{name} is", text)
    text = re.sub(r"\b[Ii]['’]ve\b", f"{name} has", text)
    text = re.sub(r"\b[Ii]['’]ll\b", f"{name} will", text)
    text = re.sub(r"\b[Ii]['’]d\b", f"{name} would", text)
    adverbs = "|".join([*sorted(_NOT_VERBS), _LY_ADVERB])
    text = re.sub(rf"\b[Ii]\s+(?:(?P<adverb>{adverbs})\s+)?(?P<verb>[\w']+)", subject, text)
    text = re.sub(r"\b[Ii]\b", name, text)
    text = re.sub(r"\b(?:my|My)\b", f"{name}'s", text)
    text = re.sub(r"\b(?:mine|Mine)\b", f"{name}'s", text)
    return re.sub(r"\b(?:myself|me)\b", name, text)


def third_person(
    statement: str, name: str, aliases: Iterable[str] = (), *, first_person_only: bool = False
) -> str:
    """Rewrite a statement about `name` in the third person: "I like pizza" -> "alice likes
    pizza", "likes pizza" -> "alice likes pizza", "her cat is Tom" -> "alice's cat is Tom".
    A statement that already starts with one of the member's names keeps its subject.

    `first_person_only`: `name` is who said it, not necessarily whom it is about, so only
    "I"/"my"/"me" become the name ("she got the job" said by bob stays about her)."""
    text = collapse(statement).strip(" \"'“”")
    if not text:
        return ""
    names = [candidate for candidate in (name, *aliases) if candidate]
    about_name = any(text.lower().startswith(candidate.lower()) for candidate in names)
    if not first_person_only and not about_name:
        text = _subject_start(text, name)
    return _first_person(text, name)


def starts_in_first_person(statement: str) -> bool:
    first = statement.strip().split(maxsplit=1)
    return bool(first) and first[0].lower().rstrip(",") in {"i", "i'm", "im", "i've", "my", "me"}
