"""Which sentences are a member's own statements about themself, and which learned sentences
are clean enough to keep.

A learned fact is stored and shown as the bot's memory of a person, so the offline learner
keeps to what it can be sure of: a plain first-person statement, not quoted or reported speech
(`my brother said "I moved to Paris"`), not a joke ("I'm allergic to mondays lol"), not a
hypothetical, wish or question ("if I moved to Paraty..."). What it writes must read as a
whole third-person sentence: no pronoun left unresolved, no clause cut off ("Melanie loves
to.").
"""

from __future__ import annotations

import re

from memory.core.text import split_sentences


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end a message's seriousness: a statement next to them may be a joke.
_JOKE = re.compile(
    r"(?:\b(?:lol+|lmf?ao+|rofl|roflmao|haha\w*|hehe\w*|jk|j/k|kidding|joking|jokes?|xd+|"
    r"yeah right|sure jan|not really|/s)\b|[😂🤣😜😆🙃😝]|[:;]-?[pP]\b)",
    re.IGNORECASE,
)
# Someone else's words, or the speaker reporting them.
_REPORTED = re.compile(
    r"[\"“”«»]|\b(?:said|says|say|saying|told|tells|asked|asks|claims?|claimed|according|"
    r"quote|quoting|texted|wrote|writes|posted|mentioned|heard|supposedly|apparently|"
    r"pretend(?:ing|ed)?|roleplay\w*|character)\b",
    re.IGNORECASE,
)
# Hypotheticals, wishes, plans and doubts: not (yet) true of the speaker.
_UNREAL = re.compile(
    r"\b(?:if|unless|would|wish(?:ed|es)?|imagine|suppose|supposing|maybe|might|could|should|"
    r"someday|hope|hoping|hopefully|dream(?:ing)?|planning|plan|plans|thinking|considering|"
    r"gonna|going to|want to|wanna|wanted to|probably|perhaps|if only|what if|kinda|sort of)\b",
    re.IGNORECASE,
)
# Pronouns a template cannot resolve; left in a fact they make it a riddle.
_PRONOUNS = _words(
    "i me my mine myself we us our ours you your yours u ur he him his she her hers they them"
    " their theirs it its this that these those y'all ya"
)
# Words a sentence cannot end on: it was cut off.
_DANGLING = _words(
    "to a an the and or but of with for in on at by from as than that how what when where"
    " which who whose so because about into like is are was were be my his her their our your"
    " some any very really just"
    # an auxiliary or a bare verb with its object cut off ("John is proud to have.")
    " have has had got get do does did can could will would should been being"
)
_WORD = re.compile(r"[\w'’-]+")


def own_statements(text: str) -> list[str]:
    """The sentences of a message that may be the speaker's plain statements about themself:
    none at all when the message jokes; never reported speech, a hypothetical or a question."""
    if _JOKE.search(text):
        return []
    kept = []
    for sentence in split_sentences(text):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue
        if _REPORTED.search(sentence) or _UNREAL.search(sentence):
            continue
        kept.append(sentence)
    return kept


def clean_value(value: str, *, max_words: int = 5) -> str | None:
    """A captured object ("camping", "Paraty", "to paint"), or None when it is not one whole
    phrase: too long, holding a pronoun, or ending on a word that leaves it unfinished."""
    value = value.strip(" ,;:-–—'’").rstrip(".!")
    tokens = [token.lower() for token in _WORD.findall(value)]
    if not tokens or len(tokens) > max_words:
        return None
    if any(token in _PRONOUNS for token in tokens):
        return None
    if tokens[-1] in _DANGLING or (tokens[0] == "to" and len(tokens) < 2):
        return None
    return value


def is_clean_fact(statement: str, name: str) -> bool:
    """A whole third-person sentence about `name`: starts with the name, at least a subject,
    verb and object, no first/second/third-person pronoun, not cut off."""
    if not statement.startswith(name):
        return False
    rest = statement[len(name) :]
    tokens = [token.lower() for token in _WORD.findall(rest)]
    if tokens and tokens[0] in {"'s", "’s", "s"}:
        tokens = tokens[1:]
    # "it'd", "that's": a pronoun with its verb attached is a pronoun too.
    if len(tokens) < 2 or any(re.split(r"['’]", token)[0] in _PRONOUNS for token in tokens):
        return False
    return tokens[-1] not in _DANGLING and statement.endswith(".")
