"""Is a merge safe to store? A merge must keep what it was not asked to drop.

A model answering prose instead of the merged facts ("Sure, noted!"), or silently dropping old
facts to make room, would otherwise replace a member's whole memory while the member is told
"Got it". A merge passes when it says the new statement and every old sentence is still there
(reworded is fine: all its content words, or most of them) unless the new statement replaces
it (the same claim, or a contradiction: newer information wins).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.core.text import split_sentences
from memory.language import (
    content_tokens,
    contradicts,
    jaccard,
    restates,
    same_claim,
    third_person,
)

# Share of content words a reworded sentence keeps (stems; names of the member ignored).
_REWORDED = 0.5


def _kept(sentence: str, merged: list[str], names: Sequence[str], *, strict: bool = False) -> bool:
    tokens = content_tokens(sentence, ignore=names)
    if not tokens:
        return True
    return any(
        restates(candidate, sentence, names=names)
        or (not strict and jaccard(tokens, content_tokens(candidate, ignore=names)) >= _REWORDED)
        for candidate in merged
    )


def dropped_claims(
    old_blob: str, merged: str, statement: str, names: Sequence[str], *, strict: bool = False
) -> list[str]:
    """Old sentences the merge lost although the new statement did not replace them. `strict`
    counts a sentence kept only when a merged one says all of it: "key 3 under pot 3" is not
    kept by "key 13 under pot 13" (for telling what was let go of for room, where near-alike
    facts are the ones a full blob drops)."""
    new = third_person(statement, names[0], names[1:]) if names else statement
    merged_sentences = split_sentences(merged)
    return [
        sentence
        for sentence in split_sentences(old_blob)
        if not _kept(sentence, merged_sentences, names, strict=strict)
        and not contradicts(sentence, new, names)
        and not same_claim(sentence, new, names)
    ]


def holds_statement(merged: str, statement: str, names: Sequence[str]) -> bool:
    """The merge says the new statement (in its words or reworded)."""
    new = third_person(statement, names[0], names[1:]) if names else statement
    return _kept(new, split_sentences(merged), names)
