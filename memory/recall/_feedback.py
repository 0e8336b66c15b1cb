"""Query expansion learned from the guild: pseudo-relevance feedback (RM3-style).

An answer often shares few words with its question. Instead of a typed list of words per
topic, the guild's own messages say which words go with a question: the best FEEDBACK_DOCS
messages a first search finds are taken as relevant, and the words they hold that the
question does not (rare in the guild) join a second search, each weighted by how much of the
feedback holds it (the best hit counts most) times its rarity, at FEEDBACK_WEIGHT of a
question word's weight. A word said all over
the guild weighs next to nothing, and the question's own words always count more. Works in
any language the guild speaks; where embeddings are configured, the semantic lane
(`_semantic.py`) adds the nearest messages in meaning on top.
"""

from __future__ import annotations

from collections.abc import Sequence

from db.recall import MessageMatch, TermStat
from memory.language import without_dates
from memory.recall._terms import idf, query_terms

# First-pass messages taken as relevant.
FEEDBACK_DOCS = 3
# Words of the feedback looked up at most (the ones the feedback holds most, first).
FEEDBACK_WORDS = 12
# Expansion terms a second search adds at most.
FEEDBACK_TERMS = 4
# An expansion term weighs this share of (its feedback share x its rarity weight).
FEEDBACK_WEIGHT = 0.5
# A word held by more than this share of the guild's messages says nothing about a topic
# (in a small guild: by more than MAX_DOCS_SMALL messages).
MAX_DOC_SHARE = 0.02
MAX_DOCS_SMALL = 5
# Words shorter than this are not worth a second search.
MIN_LETTERS = 4


def feedback_words(
    messages: Sequence[MessageMatch], asked: set[str], *, docs: int = FEEDBACK_DOCS
) -> dict[str, float]:
    """The words of the best `docs` messages that the question (`asked`: its words and the
    names it says) does not hold, with the share of the feedback holding them: each document
    weighs by its rank among them (1, 1/2, 1/3, ... normalised), like RM3's query likelihood."""
    top = messages[:docs]
    if not top:
        return {}
    weights = [1 / (n + 1) for n in range(len(top))]
    total = sum(weights)
    shares: dict[str, float] = {}
    for message, weight in zip(top, weights, strict=True):
        for word in set(query_terms(without_dates(message.content), forms=False)):
            if len(word) >= MIN_LETTERS and word not in asked and not word.isdigit():
                shares[word] = shares.get(word, 0.0) + weight / total
    ranked = sorted(shares.items(), key=lambda item: (-item[1], item[0]))
    return dict(ranked[:FEEDBACK_WORDS])


def expansion(
    stats: Sequence[TermStat], shares: dict[str, float], total: int
) -> list[tuple[TermStat, float]]:
    """The FEEDBACK_TERMS best feedback words as (term, factor of its rarity weight): rare in
    the guild (MAX_DOC_SHARE), best by feedback share times rarity."""
    if total <= 0:
        return []
    scored = []
    for stat in stats:
        share = shares.get(stat.word, 0.0)
        if stat.exact <= 0 or stat.exact > max(MAX_DOCS_SMALL, total * MAX_DOC_SHARE):
            continue
        scored.append((share * idf(stat.exact, total), stat, share))
    scored.sort(key=lambda item: (-item[0], item[1].lexeme))
    return [(stat, FEEDBACK_WEIGHT * share) for _, stat, share in scored[:FEEDBACK_TERMS]]
