"""How much a sentence of chat tells about the person who said it.

A day note has room for a few quotes, so the offline provider must pick: a member's sentences
with words the rest of the day does not use, named things, and what they say of themselves
(news in the past tense, a mood, a lasting fact: `memory.language.personal_news`) go before
greetings, reactions and the small talk everyone shares ("good morning!", "lol ok", "how are
you?").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from memory.core.text import words
from memory.language import FILLER, FIRST_PERSON, SOCIAL_OPENER, content_tokens, personal_news


class Rarity:
    """How rare each word is in one day's chat: the share of its messages that use it."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._counts: Counter[str] = Counter()
        size = 0
        for text in texts:
            self._counts.update(content_tokens(text))
            size += 1
        self._size = size
        self._norm = math.log(size + 1.5)

    def weight(self, token: str) -> float:
        """About 1 for a word one message uses, near 0 for a word every message uses."""
        if self._size == 0:
            return 1.0
        return math.log((self._size + 1) / (self._counts.get(token, 0) + 0.5)) / self._norm


def _named_things(sentence: str) -> int:
    """Capitalised words past the first: places, people, titles."""
    found = [w for w in words(sentence)[1:] if w[:1].isupper() and w.lower() not in FIRST_PERSON]
    return len(found)


def sentence_score(sentence: str, rarity: Rarity) -> float:
    """How much one sentence tells about its speaker: 0 for reactions and greetings."""
    tokens = [token.lower() for token in words(sentence)]
    meaningful = [t for t in tokens if t not in FILLER and len(t) > 2]
    if len(meaningful) < 2:
        return 0.0
    weights = sorted((rarity.weight(t) for t in content_tokens(sentence)), reverse=True)
    score = sum(weights[:6])
    if FIRST_PERSON.intersection(tokens):
        score += 1.5
    news = personal_news(sentence)
    score += 1.5 * min(2, news.events + news.facts)
    score += 1.0 * min(2, news.moods)
    score += 0.75 * min(3, _named_things(sentence))
    if any(token.isdigit() for token in tokens):
        score += 0.5
    if sentence.rstrip().endswith("?"):
        score *= 0.35  # questions reveal interests but say less than statements
    if SOCIAL_OPENER.match(sentence):
        score *= 0.3
    return round(score, 3)


def informativeness(text: str) -> float:
    """How much a whole message tells about its author: 0 for reactions, higher for life
    news (no day to compare with: condensing notes, judging what others said of a member)."""
    tokens = [token.lower() for token in words(text)]
    meaningful = [t for t in tokens if t not in FILLER and len(t) > 2]
    if len(meaningful) < 2:
        return 0.0
    content = content_tokens(text)
    score = min(len(content), 12) * 0.5
    if FIRST_PERSON.intersection(tokens):
        score += 1.5
    news = personal_news(text)
    score += 2.0 * min(2, news.events + news.facts)
    score += 1.5 * min(2, news.moods)
    if any(token.isdigit() for token in tokens):
        score += 0.5
    score += 0.5 * min(3, _named_things(text))
    if text.rstrip().endswith("?"):
        score *= 0.6
    return round(score, 3)
