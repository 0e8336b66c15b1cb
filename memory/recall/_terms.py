"""A question as search terms: its words worth searching, capped, and weighed by rarity.

The question is cut to MAX_QUESTION_CHARS and MAX_WORDS distinct words before anything else
(a 100,000-character question costs what a long sentence does); the database then says how
many of the guild's messages hold each word, and the MAX_TERMS most selective words are kept,
weighted by inverse document frequency (BM25's idf): a name said in every other message
counts little, "boat" a lot. A word of MIN_PREFIX letters or more also matches as a prefix
("climb" finds "climbing"), at PREFIX_WEIGHT of its weight; a shorter one only as itself. A
regularly inflected word is searched as its stem ("camped" as "camp", so "camping" is found
too; on LoCoMo-dev this brought more multi-hop evidence into a search's first sixteen hits).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from db.recall import TermStat, Weighted, lexeme_query
from memory.language import SEARCH_STOP_WORDS as STOP_WORDS
from memory.language import SMALL_TALK, other_forms, regular_stem

MAX_QUESTION_CHARS = 2000
MAX_WORDS = 32
MAX_TERMS = 8
MIN_PREFIX = 4
PREFIX_WEIGHT = 0.5
# Candidate rows a search scores: the rarest terms' posting lists, while they stay this long.
CANDIDATE_BUDGET = 2000
# When even the rarest term is common, rows holding one of the two rarest terms with another of
# this many rarest terms are scored.
PAIRED_TERMS = 5

# Apostrophes split words, as the text search parser splits them in the stored vectors: "kim's"
# searches "kim" (a lone "s" would be a prefix of half the guild's words).
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(question: str, *, forms: bool = True) -> list[str]:
    """The words of a question worth searching for, in order, without repeats (at most
    MAX_WORDS of them, from its first MAX_QUESTION_CHARS characters)."""
    terms: dict[str, None] = {}
    for word in _WORD.findall(question[:MAX_QUESTION_CHARS].lower()):
        if len(word) > 1 and word not in STOP_WORDS and not word.isdigit():
            # "camped" is searched as "camp", a prefix: it finds "camping" and "camps" too.
            stem = regular_stem(word) if forms and word not in SMALL_TALK else None
            terms.setdefault(stem or word, None)
            if len(terms) >= MAX_WORDS:
                break
    for word in list(terms) if forms else ():  # "grow" finds "grew": irregular forms too
        for form in other_forms(word):
            if len(terms) < MAX_WORDS and form not in STOP_WORDS:
                terms.setdefault(form, None)
    return list(terms)


def worth_searching(text: str) -> bool:
    """Whether a message to the bot asks about something: any word beyond greetings, thanks
    and question words."""
    return any(word not in SMALL_TALK for word in query_terms(text))


def was_capped(question: str) -> bool:
    """Whether a question was longer than a search reads (the rest was ignored)."""
    if len(question) > MAX_QUESTION_CHARS:
        return True
    return len(query_terms(question, forms=False)) >= MAX_WORDS


@dataclass(frozen=True, slots=True)
class Plan:
    """What one search asks the database: the candidate rows' queries, each term's weight, and
    the names of the members named in the question (a row saying one is boosted like the
    members' own rows; None when no one is named)."""

    candidates: tuple[str, ...]
    terms: tuple[Weighted, ...]
    names: str | None = None
    rows: int = 0  # how many rows the candidates' single words hold (pairs: unknown, 0)
    # The weight of the rarest term some message holds (0: none does): what a named member's
    # row or a row said when asked about counts for. A word no message holds has the highest
    # weight of all and matches nothing: as a boost it put a named member's every line above
    # the lines holding what was asked ("partake", a typo).
    top_weight: float = 0.0


def idf(docs: int, total: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1 + (total - docs + 0.5) / (docs + 0.5))


def plan(
    stats: Sequence[TermStat],
    total: int,
    *,
    names: Iterable[str] = (),
    related: Sequence[tuple[TermStat, float]] = (),
) -> Plan | None:
    """The MAX_TERMS rarest words the guild's messages hold, weighted (words no message holds
    come last, for the summaries). Words in `names` (a named member's names) are not terms:
    rows saying them get the named member's boost, and they help pick the candidate rows;
    None when no other word is left. `related` (words the guild's own messages add to the
    question, `_feedback.py`, each with the share of its rarity weight it gets): said in the
    guild, they join as whole-word terms, and as candidates while the candidate rows stay
    within budget (the rarest first)."""
    wanted = {word.lower() for word in names}
    named = [s for s in stats if s.word in wanted or s.lexeme in wanted]
    kept = [s for s in stats if s not in named]
    if not kept:
        return None
    chosen = sorted(kept, key=lambda s: (_docs(s) == 0, _docs(s)))[:MAX_TERMS]
    total = max(total, max(_docs(s) for s in chosen))
    terms = tuple(
        Weighted(
            s.lexeme,
            idf(s.exact, total),
            None if s.prefixed is None else PREFIX_WEIGHT * idf(s.prefixed, total),
        )
        for s in chosen
    )
    # What a row holding a word some message holds counts for: the whole word's weight, else
    # (held only as the start of longer words) its prefix's.
    held = [
        term.weight if stat.exact else (term.prefix_weight or 0.0)
        for stat, term in zip(chosen, terms, strict=True)
        if _docs(stat) > 0
    ]
    # Rows saying a name with one of the two rarest words are candidates too ("kim's dog" for
    # "what was the name of kim's dog?"); a name alone never is (bob's message about Berlin
    # does not say "bob": it is found by "berlin" and boosted as his).
    with_names = tuple(
        f"{lexeme_query(name.lexeme)} & {_operand(term)}"
        for name in named[:2]
        for term in chosen[:2]
    )
    boost = " | ".join(lexeme_query(s.lexeme) for s in named) or None
    candidates = _candidates(chosen)
    rows = sum(_docs(s) for s in chosen if _operand(s) in candidates)
    own = {s.lexeme for s in stats}
    extra = sorted(
        ((s, f) for s, f in related if s.exact > 0 and s.lexeme not in own),
        key=lambda item: _docs(item[0]),
    )
    for stat, factor in extra:
        terms += (Weighted(stat.lexeme, factor * idf(stat.exact, total)),)
        if rows + stat.exact <= CANDIDATE_BUDGET:
            candidates += (lexeme_query(stat.lexeme),)
            rows += stat.exact
    return Plan(candidates + with_names, terms, boost, rows, max(held, default=0.0))


def _docs(stat: TermStat) -> int:
    return stat.exact if stat.prefixed is None else stat.prefixed


def _operand(stat: TermStat) -> str:
    return lexeme_query(stat.lexeme, prefix=stat.prefixed is not None)


def _candidates(rarest_first: Sequence[TermStat]) -> tuple[str, ...]:
    """Queries for the rows worth scoring (a row matching any of them), each run as its own
    index scan: rows holding one of the rarest terms while their postings stay within
    CANDIDATE_BUDGET, and rows holding all of the commoner ones together. When even the
    rarest term is common: rows holding one of the two rarest terms with another of the
    PAIRED_TERMS rarest (each pair is an intersection bounded by its rarer side; pairs of two
    common words are never asked for: their postings cost more to intersect than their rows
    could rank). A row holding none of these holds only common words and could not outrank
    them."""
    used, rare = 0, list[TermStat]()
    for stat in rarest_first:
        if rare and used + _docs(stat) > CANDIDATE_BUDGET:
            break
        rare.append(stat)
        used += _docs(stat)
    if used > CANDIDATE_BUDGET and len(rarest_first) >= 2:
        top = [_operand(s) for s in rarest_first[:PAIRED_TERMS]]
        return tuple(f"{a} & {b}" for i, a in enumerate(top[:2]) for b in top[i + 1 :])
    clauses = [_operand(s) for s in rare]
    rest = rarest_first[len(rare) :]
    if len(rest) >= 2:
        clauses.append(" & ".join(_operand(s) for s in rest))
    return tuple(clauses)


def fallback(found: Plan) -> tuple[str, ...] | None:
    """When a plan asks only for pairs of common words, the rows of its rarest word alone: a
    second search for when the pairs found too few rows."""
    if not found.candidates or "&" not in found.candidates[0]:
        return None
    rarest = found.candidates[0].split(" & ")[0]
    return (rarest,)
