"""A sentence cut into clauses, and a clause's object cut to what it says for good.

"oh btw I play tennis at the club, and my sister Mia is visiting" holds two statements;
"I love camping trips with my fam" holds one ("camping trips") and a detail the learner
cannot resolve ("with my fam"). These helpers do the cutting by grammar alone: punctuation,
conjunctions, prepositions, pronouns and time words (`_english`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory.language._english import (
    CLAUSE_BREAKS,
    CLAUSE_OPENERS,
    DEICTIC,
    DETERMINERS,
    GENERIC_NOUNS,
    INTERJECTIONS,
    LASTING_PAST,
    LEAD_PHRASES,
    LIGHT_VERBS,
    MOMENT,
    MOMENT_PHRASES,
    NEEDS_ITS_DETAIL,
    NEW_SUBJECT,
    PREPOSITIONS,
    QUALITIES,
    SIZING,
    SOFT_ADVERBS,
    SUBORDINATORS,
    TRAILING_TIME,
)

_LEAD = re.compile(
    r"^(?:[\w ]{1,20}:\s+)?(?:(?:"
    + "|".join(re.escape(word) for word in sorted({*INTERJECTIONS, *LEAD_PHRASES}, key=len)[::-1])
    + r")\b[,:!.]*\s+)*",
    re.IGNORECASE,
)
# A time said before or after a statement: "last week", "two years back", "the other day".
_PAST_TIME = (
    r"(?:last|this|next) \w+|yesterday|the other day|over the weekend"
    r"|(?:a|one|two|three|four|five|\d+|a few|a couple of) \w+ (?:ago|back)|back in \w+"
    r"|in \d{4}|since (?:we|i) last \w+"
)
# A past time before "I <a past that lasts>" or "my <someone>": "last week I joined a choir",
# "since we last spoke, I moved to Porto". Before any other verb it stays, so "yesterday I
# retook the test" is never read as a present habit ("retooks").
_LEAD_TIME = re.compile(
    rf"^(?:{_PAST_TIME})\s*,?\s+(?=(?:I (?:(?:"
    + "|".join(map(re.escape, sorted(SOFT_ADVERBS)))
    + r") )*(?:"
    + "|".join(map(re.escape, sorted(LASTING_PAST)))
    + r")|my)\b)",
    re.IGNORECASE,
)
# Where the first clause of a sentence ends (a past time moved out of its lead goes there).
_CLAUSE_END = re.compile(r"\s*(?:[;:!,.?()]|\s[-–—]\s)")
_PUNCTUATION = re.compile(r"\s*(?:[;:!,()]|\s[-–—]\s|\.\.+)\s*")
_EDGE = " .!?…'\"“”*_~"
# Words longer than this after the verb are a story, not a fact.
MAX_OBJECT_WORDS = 10
MAX_CORE_WORDS = 5


def without_lead(sentence: str) -> str:
    """The sentence without the interjections it opens with ("oh, btw I ..." -> "I ..."),
    and with a past time before its subject moved to the end of its clause ("two years ago I
    started whittling, love it" -> "I started whittling two years ago, love it"): the verb still
    says whether what follows lasts, and the time says a pastime began then, as it does
    after the verb."""
    rest = _LEAD.sub("", sentence.strip(), count=1)
    lead = _LEAD_TIME.match(rest)
    if lead is None:
        return rest
    when, rest = lead.group(0).strip(" ,").lower(), rest[lead.end() :]
    end = _CLAUSE_END.search(rest)
    at = end.start() if end else len(rest)
    return f"{rest[:at]} {when}{rest[at:]}"


def clauses(sentence: str) -> list[list[str]]:
    """The clauses of a sentence that state something, as word lists: cut at punctuation and
    conjunctions, and at "and" when a new subject follows it ("and my sister ...", not
    "pizza and beer"); a clause of background ("when I moved to Boston") is left out."""
    found: list[list[str]] = []
    for piece in _PUNCTUATION.split(sentence):
        words = [word.strip(_EDGE) for word in piece.split()]
        found.extend(_cut(word for word in words if word))
    return [clause for clause in found if clause]


def _cut(words: Iterable[str]) -> list[list[str]]:
    found: list[list[str]] = []
    current: list[str] = []
    background = False
    listed = list(words)
    for index, word in enumerate(listed):
        lower = word.lower()
        following = listed[index + 1].lower() if index + 1 < len(listed) else ""
        # "and it's", "and I'm": a contracted subject is a new subject too.
        new_subject = re.split(r"['’]", following)[0] in NEW_SUBJECT
        subordinate = lower in SUBORDINATORS and new_subject
        if lower in CLAUSE_BREAKS or subordinate or (lower == "and" and new_subject):
            if not background:
                found.append(current)
            current, background = [], subordinate
            continue
        current.append(word)
    if not background:
        found.append(current)
    return found


def lowered(words: list[str]) -> list[str]:
    return [word.lower().replace("’", "'") for word in words]


def is_momentary(words: list[str]) -> bool:
    """Pinned to now: "today", "again", "right now", "this morning"."""
    lower = lowered(words)
    if MOMENT.intersection(lower):
        return True
    text = " ".join(lower)
    return any(f" {phrase} " in f" {text} " for phrase in MOMENT_PHRASES)


# The same times at a statement's end, where a moved lead time goes too (`without_lead`).
_WHEN = re.compile(rf"(?:^| )(?:{_PAST_TIME})$")


def without_trailing_time(words: list[str]) -> list[str]:
    """ "in Recife these days" -> "in Recife", "a mare named Juno last spring" -> "a mare named
    Juno": the time phrase says when, not what."""
    words = list(words)
    changed = True
    while words and changed:
        changed = False
        text = " ".join(lowered(words))
        for phrase in TRAILING_TIME:
            if text == phrase or text.endswith(" " + phrase):
                words = words[: len(words) - len(phrase.split())]
                changed = True
                break
        match = None if changed else _WHEN.search(text)
        if match:
            words = words[: len(words) - len(match.group(0).split())]
            changed = True
    return words


def _segments(words: list[str]) -> list[list[str]]:
    """The object and each prepositional detail after it: "tennis | at the club | on Sundays"."""
    segments: list[list[str]] = [[]]
    for index, word in enumerate(words):
        opens_detail = word.lower() in PREPOSITIONS and index > 0 and segments[-1]
        if opens_detail and not (word.lower() == "to" and words[index - 1].lower() == "up"):
            segments.append([])
        segments[-1].append(word)
    return [segment for segment in segments if segment]


def _clean(segment: list[str]) -> bool:
    return not DEICTIC.intersection(lowered(segment))


def _word_salad(core: list[str]) -> bool:
    """A bare object of many words with no article, number, name, "and" or "-ing" to hold it
    together ("good beach gym pizza") is not a noun phrase: English puts a determiner before
    a long one ("a small bakery downtown") or lists it with "and"."""
    lower = lowered(core)
    if len(lower) <= 2 or lower[0] in DETERMINERS or lower[0] in PREPOSITIONS:
        return False
    held = any(w[:1].isupper() or w.isdigit() or w.endswith("ing") for w in core)
    return not held and "and" not in lower and "or" not in lower


def object_phrase(words: list[str]) -> str | None:
    """What a verb says of its subject, cut to the details that stay true and resolvable:
    "camping trips with my fam" -> "camping trips"; None when the object itself is a
    pronoun, a clause ("how it's relaxing") or a thing of the moment ("the new update")."""
    words = without_trailing_time(words)
    if not words:
        return None
    lower = lowered(words)
    if lower[0] in DEICTIC or {lower[0], "_".join(lower[:2])} & CLAUSE_OPENERS:
        return None  # "how it's relaxing", "the way the frosting turned out"
    if lower[0] == "the" and len(lower) > 1 and lower[1] in {"new", "latest", "current"}:
        return None
    segments = _segments(words)
    if not _clean(segments[0]) or len(segments[0]) > MAX_CORE_WORDS + 1:
        return None
    if _word_salad(segments[0]):
        return None
    if len(segments) > 1 and len(segments[0]) == 1 and segments[0][0].lower() in PREPOSITIONS:
        return None  # "working on for a while": the preposition lost its object
    kept = [segments[0]]
    for segment in segments[1:]:
        if not _clean(segment):  # a detail the reader cannot resolve ends the object
            if segment[0].lower() == "of":
                if len(kept) == 1:
                    return None  # "the color of this vase": the object needs what it cannot say
                kept.pop()  # "for most of my life": the detail needs it too
            elif _needs(kept, segment):
                return None  # "getting lost in those worlds": without them it says something else
            break
        if sum(map(len, kept)) + len(segment) > MAX_OBJECT_WORDS:
            break
        kept.append(segment)
    said = [word for segment in kept for word in segment]
    return None if _says_nothing(said) else " ".join(said)


# Words around a noun that name nothing themselves: what a generic object is left with.
_CARRIERS = DETERMINERS | SIZING | PREPOSITIONS | SOFT_ADVERBS | LIGHT_VERBS


def _needs(kept: list[list[str]], detail: list[str]) -> bool:
    """Whether what is `kept` says what the line said only with `detail`: a doing word that
    needs it ("getting lost in those worlds"), or what it is about ("talking to people about
    my sneakers" is not "talking to people")."""
    bare = len(kept) == 1 and lowered(kept[0])[0] in NEEDS_ITS_DETAIL
    return bare or detail[0].lower() == "about"


def _says_nothing(words: list[str]) -> bool:
    """An object of generic words alone ("spending time", "a huge fan", "on a new project"):
    without a word that names what, the fact would tell a reader nothing."""
    return all(word in GENERIC_NOUNS for word in lowered(words) if word not in _CARRIERS)


def at_hand(phrase: str) -> bool:
    """ "the color and texture", "the energy", "the idea and the acting": what something in
    front of the speaker is like (the object's nouns name a quality, with no "of" to say of
    what), a reaction rather than a lasting liking."""
    words = lowered(phrase.split())
    if words[:1] != ["the"] or "of" in words:
        return False
    heads = [part.split()[-1] for part in " ".join(words).split(" and ") if part.split()]
    return any(head in QUALITIES for head in heads)


def head_of(phrase: str) -> str:
    """The object without its details, lowercased: the subject key of a learned fact."""
    segments = _segments(phrase.split())
    return " ".join(lowered(segments[0])) if segments else ""
