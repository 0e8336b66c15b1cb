"""Forgetting must stick: drop every summary sentence that restates a forgotten statement.

Stored daily summaries may predate a forget, and a model may ignore the prompt constraint, so
each text is filtered again before it is merged or served. The match errs on the side of
forgetting: a sentence goes when it contains the statement, or every content word of it
(names of the member aside, since summaries often say "she" instead).

Other members' summaries can repeat it too ("Bob said Alice loves pineapple pizza"), so
`drop_guild_forgotten` also drops such sentences from anyone's text when they name the member.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import asyncpg

from db.summaries import forgotten_in_guild

_log = logging.getLogger(__name__)

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_NON_WORD = re.compile(r"[^\w]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "to",
        "of",
        "and",
        "or",
        "in",
        "on",
        "at",
        "that",
        "this",
        "it",
        "its",
        "he",
        "she",
        "they",
        "him",
        "her",
        "them",
        "his",
        "hers",
        "their",
        "theirs",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "with",
        "for",
        "as",
        "by",
        "about",
        "from",
        "who",
        "not",
        "no",
        "very",
        "really",
        "just",
        "also",
    ]
)


def _normalize(text: str) -> str:
    return _NON_WORD.sub(" ", text.lower()).strip()


def _stem(word: str) -> str:
    # A crude prefix stem so "likes"/"liked"/"liking" and "pizza"/"pizzas" meet.
    return word[:4] if len(word) > 4 else word


def _content_stems(text: str, ignore: frozenset[str]) -> set[str]:
    return {
        _stem(word)
        for word in _normalize(text).split()
        if word not in _STOPWORDS and word not in ignore and len(word) > 1
    }


def split_sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def restates(sentence: str, statement: str, names: Iterable[str] = ()) -> bool:
    """True when `sentence` says what `statement` said (see module doc for the rule)."""
    needle = _normalize(statement)
    if not needle:
        return False
    haystack = _normalize(sentence)
    if needle in haystack:
        return True
    ignore = frozenset(word for name in names for word in _normalize(name).split())
    wanted = _content_stems(statement, ignore)
    if not wanted:
        return False
    present = {_stem(word) for word in haystack.split()}
    return wanted <= present


def drop_forgotten(
    text: str, forgotten: Iterable[str], names: Iterable[str] = ()
) -> tuple[str, int]:
    """`text` without the sentences restating any forgotten statement; (text, sentences dropped)."""
    statements = [statement for statement in forgotten if statement.strip()]
    if not text or not statements:
        return text, 0
    names = tuple(names)
    kept: list[str] = []
    dropped = 0
    for sentence in split_sentences(text):
        if any(restates(sentence, statement, names) for statement in statements):
            dropped += 1
        else:
            kept.append(sentence)
    if dropped:
        _log.debug("dropped %d sentence(s) restating forgotten statements", dropped)
        return " ".join(kept), dropped
    return text, 0


@dataclass(frozen=True, slots=True)
class ForgottenAbout:
    """Statements forgotten about one member, with the names that point at that member."""

    user_id: int
    names: tuple[str, ...]
    statements: tuple[str, ...]

    def named_in(self, sentence: str) -> bool:
        words = f" {_normalize(sentence)} "
        return any(f" {_normalize(name)} " in words for name in self.names if len(name.strip()) > 1)


def drop_guild_forgotten(
    text: str, subject_id: int, forgotten: Sequence[ForgottenAbout]
) -> tuple[str, int]:
    """`text` about `subject_id` without sentences restating anything forgotten in the guild:
    the subject's own statements always, another member's when the sentence names them."""
    if not text or not forgotten:
        return text, 0
    kept: list[str] = []
    dropped = 0
    for sentence in split_sentences(text):
        if any(
            (about.user_id == subject_id or about.named_in(sentence))
            and any(restates(sentence, statement, about.names) for statement in about.statements)
            for about in forgotten
        ):
            dropped += 1
        else:
            kept.append(sentence)
    return (" ".join(kept), dropped) if dropped else (text, 0)


async def load_guild_forgotten(
    db: asyncpg.Pool | asyncpg.Connection, guild_id: int
) -> list[ForgottenAbout]:
    """Everything forgotten in the guild, by member, ready for `drop_guild_forgotten`."""
    return [
        ForgottenAbout(member.user_id, member.names, tuple(statements))
        for member, statements in await forgotten_in_guild(db, guild_id)
    ]
