"""Offline fact handling: remember, forget and the facts-first context merge.

Facts are kept as third-person sentences. Remember replaces a sentence the new fact
contradicts (same subject, same single-valued predicate) or repeats, else appends; forget
drops sentences that make the forgotten claim; merge puts facts first and fills the rest with
summary sentences that neither repeat nor contradict them. Statements a member asked to
forget never come out of any of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.core.text import end_sentence, split_sentences, truncate
from memory.language import (
    content_tokens,
    contradicts,
    drop_restating,
    jaccard,
    restates_any,
    same_claim,
    third_person,
)


@dataclass(frozen=True, slots=True)
class FactRules:
    """Whose facts a text holds and what it must keep to: the member's names, the length, and
    the statements they asked to forget (which never come out again)."""

    name: str
    aliases: Sequence[str]
    max_chars: int
    forgotten: Sequence[str] = ()

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def allowed(self, text: str) -> list[str]:
        """The sentences of `text` that restate nothing forgotten."""
        return [
            s
            for s in split_sentences(text)
            if not restates_any(s, self.forgotten, names=self.names)
        ]


def _cap(sentences: list[str], max_chars: int, *, keep_last: bool) -> str:
    """Drop the oldest sentences until the text fits (the newest fact is kept)."""
    kept = list(sentences)
    while len(" ".join(kept)) > max_chars and len(kept) > 1:
        kept.pop(0 if keep_last else len(kept) - 1)
    return truncate(" ".join(kept), max_chars)


def remember(blob: str, statement: str, rules: FactRules) -> str:
    """The blob with `statement` merged in: newer wins, duplicates merge, nothing forgotten."""
    names, max_chars = rules.names, rules.max_chars
    new = third_person(statement, rules.name, rules.aliases)
    new = end_sentence(new) if new else new
    existing = rules.allowed(blob)
    if not new or restates_any(new, rules.forgotten, names=names):
        return _cap(existing, max_chars, keep_last=True)
    new_tokens = content_tokens(new, ignore=names)
    merged: list[str] = []
    placed = False
    for sentence in existing:
        replaced = (
            contradicts(sentence, new, names)
            or same_claim(sentence, new, names)
            or content_tokens(sentence, ignore=names) == new_tokens
        )
        if not replaced:
            merged.append(sentence)
        elif not placed:  # the new fact takes the old one's place, so the order stays familiar
            merged.append(new)
            placed = True
    if not placed:
        merged.append(new)
    if len(" ".join(merged)) > max_chars and placed:
        # Trimming drops from the front: move the new fact last so it survives.
        merged.remove(new)
        merged.append(new)
    return _cap(merged, max_chars, keep_last=True)


def forget(
    blob: str, statement: str, *, name: str, aliases: Sequence[str] = ()
) -> tuple[bool, str]:
    """Remove every sentence making the claim in `statement`; report whether any did."""
    kept, dropped = drop_restating(blob, [statement], names=[name, *aliases])
    return dropped > 0, kept


def merge(facts: str, today: str, history: str, rules: FactRules) -> str:
    """Facts first (they win conflicts), then new information from today, then history."""
    names, max_chars = rules.names, rules.max_chars
    fact_sentences = [end_sentence(s) for s in rules.allowed(facts)]
    seen = [content_tokens(s, ignore=names) for s in fact_sentences]
    # Over the budget, the oldest facts go first: the newest are the ones a member means.
    facts_text = _cap(fact_sentences, max_chars, keep_last=True) if fact_sentences else ""
    parts = [facts_text] if facts_text else []
    used = len(facts_text)
    for label, text in (("Today", today), ("Earlier", history)):
        labelled = False
        for sentence in rules.allowed(text):
            if any(contradicts(fact, sentence, names) for fact in fact_sentences):
                continue
            tokens = content_tokens(sentence, ignore=names)
            if not tokens or any(jaccard(tokens, earlier) >= 0.7 for earlier in seen):
                continue
            piece = end_sentence(sentence) if labelled else f"{label}: {end_sentence(sentence)}"
            extra = len(piece) + (1 if used else 0)
            if used + extra > max_chars:
                continue
            seen.append(tokens)
            parts.append(piece)
            used += extra
            labelled = True
    return " ".join(parts)
