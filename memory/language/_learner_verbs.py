"""The two verb forms whose statements last only sometimes: a past that leaves a state ("I
moved to Madrid" means she lives there) and a progressive that is a way of life ("I'm living
in Turku", "I'm learning the oboe these days") rather than what one is doing now."""

from __future__ import annotations

from memory.language._clauses import head_of, lowered, object_phrase, without_trailing_time
from memory.language._english import (
    FOUNDED,
    HOW_ONE_IS,
    JOINED_FOR_A_WHILE,
    LASTING_PROGRESSIVE,
    MENTAL_VERBS,
    MOMENT,
    MOMENT_GERUNDS,
    NOT_NAMES,
)
from memory.language._learned import Learned

_PLACE_JOINERS = frozenset({"de", "do", "da", "del", "la", "of", "upon", "am", "on"})
_DURATION = frozenset({"years", "months", "year", "ages", "lately", "nowadays"})
# Progressives whose object by its title is a pastime of these days.
_WITH_TITLES = frozenset({"reading", "watching", "playing", "rereading", "bingeing", "binging"})
# What a membership is joined by: an article or a name ("a choir", "the Navy", "Greenpeace"),
# never a pronoun ("joined them for lunch") or a bare noun ("joined in").
_JOINED_OPENERS = frozenset({"a", "an", "the"})
# Words that say when a habit began: "I started fencing two years ago", "... in 2019".
_BEGAN_WHEN = frozenset({"ago", "since", "last", "in", "when", "back"})


def _place(words: list[str]) -> str | None:
    """The capitalised name that starts `words`: "New York", "Rio de Janeiro"."""
    taken: list[str] = []
    for index, word in enumerate(words[:5]):
        if word[:1].isupper() or (
            word.lower() in _PLACE_JOINERS
            and index + 1 < len(words)
            and words[index + 1][:1].isupper()
        ):
            taken.append(word)
        else:
            break
    return " ".join(taken) or None


def lasting_past(verb: str, words: list[str], name: str) -> Learned | None:
    """ "I moved to Madrid" -> lives in Madrid; "I grew up in Recife", "I was born in Lyon",
    "I graduated from ...", "I studied law", "I adopted a greyhound"."""
    lower = lowered(words)
    if verb in {"moved", "relocated"}:
        while lower and lower[0] in {"back", "recently", "just", "finally", "all", "the", "way"}:
            words, lower = words[1:], lower[1:]
        place = _place(words[1:]) if lower[:1] == ["to"] else None
        return Learned("home", f"{name} lives in {place}.") if place else None
    if verb == "grew" and lower[:1] == ["up"]:
        phrase = object_phrase(words[1:])
        return Learned("origin", f"{name} grew up {phrase}.") if phrase else None
    if verb == "was" and lower[:1] == ["born"]:
        phrase = object_phrase(words[1:])
        if phrase is None:
            return None
        in_place = phrase.split()[0].lower() == "in" and phrase.split()[-1][:1].isupper()
        return Learned("birthplace" if in_place else "born", f"{name} was born {phrase}.")
    if verb in {"graduated", "studied", "adopted"}:
        phrase = object_phrase(words)
        return Learned(f"{verb}:{head_of(phrase)}", f"{name} {verb} {phrase}.") if phrase else None
    if verb in {"joined", "signed"}:
        return _joined(verb, words, name)
    if verb in {"started", "began"}:
        return _began(verb, words, name) or _founded(verb, words, name)
    if verb in {"opened", "launched", "founded"}:
        return _founded(verb, words, name)
    return None


def _undated(words: list[str]) -> list[str]:
    """The words of a past that lasts without when it happened ("yesterday", "last week"): the
    when is not part of the fact."""
    return without_trailing_time([w for w in words if w.lower() not in MOMENT])


def _founded(verb: str, words: list[str], name: str) -> Learned | None:
    """ "I opened an online clothing store", "I launched a podcast", "I founded a nonprofit":
    something of one's own that lasts past the day it began. Only "a"/"an" and a head that
    names such a thing (FOUNDED): not "I opened the window", "I opened a can of soup", "I
    started a fight"; not "my own business" (the third person would need to know whose)."""
    words = _undated(words)
    if not words or words[0].lower() not in {"a", "an"}:
        return None
    phrase = object_phrase(words)
    if phrase is None:
        return None
    head = head_of(phrase)
    if not FOUNDED.intersection(head.split()):
        return None
    return Learned(f"founded:{head}", f"{name} {verb} {phrase}.")


def _joined(verb: str, words: list[str], name: str) -> Learned | None:
    """ "I joined a book club last week" -> joined a book club; "I signed up for a welding
    course yesterday" -> signed up for a welding course: a membership that lasts past the day
    it began. Not "I joined them for lunch", "I signed the card" or "I joined a call"."""
    if verb == "signed":
        if lowered(words)[:2] != ["up", "for"]:
            return None
        verb, words = "signed up for", words[2:]
    words = _undated(words)
    lower = lowered(words)
    if not lower or not (lower[0] in _JOINED_OPENERS or words[0][:1].isupper()):
        return None
    phrase = object_phrase(words)
    if phrase is None or (len(phrase.split()) < 2 and not phrase[:1].isupper()):
        return None
    head = head_of(phrase)
    noun = phrase.split()[len(head.split()) - 1]  # the head's last word, as written
    if noun.lower() in JOINED_FOR_A_WHILE and not noun[:1].isupper():
        return None  # a call, a game, a protest: joined for a while, not as a member
    return Learned(f"joined:{head}", f"{name} {verb} {phrase}.")


def of_mind(gerund: str) -> bool:
    """ "caring", "thinking", "feeling": a verb of the mind, its base written any way English
    drops or doubles a letter before "-ing" ("care", "forget")."""
    stem = gerund.removesuffix("ing")
    bases = {stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem}
    return bool(bases & MENTAL_VERBS)


def _began(verb: str, words: list[str], name: str) -> Learned | None:
    """ "I started fencing two years ago", "I began volunteering at the food bank": a pastime
    taken up (the same subject as "I've taken up fencing"). Not a moment's start ("I started
    crying"), a state of mind ("I started feeling better") or a pastime with neither a where
    nor a when ("I started cooking", said of dinner)."""
    lower = lowered(words)
    gerund = lower[0] if lower else ""
    if not gerund.endswith("ing") or len(gerund) < 5 or gerund in MOMENT_GERUNDS:
        return None
    if of_mind(gerund) or gerund in {"getting", "going", "being"}:
        return None
    phrase = object_phrase(words)
    if phrase is None or how_one_is(" ".join(phrase.split()[1:])):
        return None
    detail = len(phrase.split()) > 1 or bool(_BEGAN_WHEN.intersection(lower[1:]))
    if not detail:
        return None
    return Learned(f"took up:{head_of(phrase)}", f"{name} {verb} {phrase}.")


def how_one_is(phrase: str) -> bool:
    """Whether an object says only how one is doing ("great", "really well", "busy"): small
    talk of the moment, whatever the verb before it."""
    said = [word.strip(".,!").lower() for word in phrase.split()]
    return (
        bool(said)
        and said[-1] in HOW_ONE_IS
        and all(
            word in HOW_ONE_IS or word in {"really", "so", "very", "pretty", "quite"}
            for word in said
        )
    )


def _titled(words: list[str]) -> bool:
    """ "I'm reading Beowulf", "I'm playing Hades", "I'm watching The Wire": a book, game or
    show by its title is what one is into these days ("I'm reading a text" is the moment's)."""
    if len(words) < 2 or words[0].lower() not in _WITH_TITLES:
        return False
    title = words[1:3]
    if title[0] in {"The", "A", "An"}:  # "The Lean Startup", not "The end of it"
        title = title[1:]
    elif title[0] in NOT_NAMES:
        return False
    # A capitalised word that is not a two-letter abbreviation ("TV").
    return bool(title) and title[0][:1].isupper() and not (title[0].isupper() and len(title[0]) < 3)


def progressive(words: list[str], name: str) -> Learned | None:
    """ "I'm living in Turku", "I'm working as a welder", "I'm learning Greek these days"; not
    "I'm eating lunch" (what one does now)."""
    lower = lowered(words)
    verb = lower[0]
    lasting = verb in LASTING_PROGRESSIVE or _DURATION.intersection(lower) or _titled(words)
    if not lasting and "these days" not in " ".join(lower):
        return None
    phrase = object_phrase(words[1:])
    if phrase is None or how_one_is(phrase):  # "I'm working hard"
        return None
    statement = f"{name} is {verb} {phrase}."
    first = phrase.split()
    if verb == "living" and first[0].lower() == "in" and first[-1][:1].isupper():
        return Learned("home", statement)
    if verb == "working" and first[0].lower() in {"at", "for"} and first[1][:1].isupper():
        return Learned("employer", statement)
    if verb == "working" and first[0].lower() == "as":
        return Learned("job", statement)
    return Learned(f"is {verb}:{head_of(phrase)}", statement)
