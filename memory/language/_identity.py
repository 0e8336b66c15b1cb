"""Identity statements: "alice is Sergey", "alice's real name is Sergey", "alice goes by
Sergey" give a member a new name. English, with the words that follow "is" without being a
name (nationalities, faiths, days, months)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.core.text import wordset

# "X is Sergey", "X is also called Sergey", "X's real name is Sergey", "X goes by Sergey".
_IDENTITY = re.compile(
    r"^(?P<subject>.+?)(?:\s+is\s+(?:also\s+)?(?:called\s+|named\s+|known\s+as\s+|aka\s+)?"
    r"|(?:'s|’s)\s+(?:real\s+|full\s+|first\s+)?name\s+is\s+|\s+goes\s+by\s+|\s+aka\s+)"
    r"(?P<alias>[A-ZА-ЯЁ][\w'’-]*(?:\s+[A-ZА-ЯЁ][\w'’-]*)?)\s*[.!]?$",
)
_NOT_NAMES = wordset(
    """american british english french german russian ukrainian polish spanish italian dutch
    chinese japanese korean indian brazilian mexican canadian australian swedish norwegian
    danish finnish greek turkish jewish christian catholic muslim buddhist hindu atheist
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december i ok okay back here there"""
)
_PRONOUNS = frozenset({"he", "she", "they", "him", "her", "them"})


def identity_alias(statement: str, subjects: Sequence[str]) -> str | None:
    """The new name in an identity statement about one of `subjects` ("alice is Sergey")."""
    match = _IDENTITY.match(statement.strip())
    if match is None:
        return None
    subject = match.group("subject").strip().lstrip("@").lower()
    allowed = {s.strip().lstrip("@").lower() for s in subjects if s} | _PRONOUNS
    alias = match.group("alias").strip()
    if subject not in allowed or alias.lower() in _NOT_NAMES:
        return None
    return alias
