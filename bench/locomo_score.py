"""Scoring one reply prompt against one LoCoMo question (bench/locomo.py).

Only the prompt's memory part counts: what is between <memories> and </memories> (member
contexts, recalled turns, dates, episodes). The conversation window does not: the last
session's turns sitting in it would answer nothing a member could not scroll up to read.

- an evidence turn is in the memories when its text is (bench/quality_score.py's rule: 80% of
  its word trigrams, or all its words in order within a little slack); a turn with no text
  but a picture counts by its caption;
- answer words: every content word of the answer (function words dropped, a plural's "s"
  ignored) is somewhere in the memories.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from bench.locomo_data import Conversation, Question
from bench.quality_data import words
from bench.quality_score import contains_message, without_question

# Words an answer shares with any text: not evidence of the answer.
_FUNCTION_WORDS = frozenset(
    re.findall(
        r"[a-z]+",
        """a an the and or of to in on at for by with from as is are was were be been it its this
        that these those he she they them his her their i you we our my your me him us not no
        yes do does did has have had will would can could should may might so than then there
        about into over after before during""",
    )
)
_MEMORIES = re.compile(r"<memories>(.*?)</memories>", re.S)


@dataclass(frozen=True)
class Score:
    evidence_all: bool  # every evidence turn is in the memories
    evidence_any: bool  # at least one is
    answer_words: bool  # every content word of the answer is
    scored: bool  # the question names evidence turns that exist (else it is not scored)


def memories_of(prompt: str) -> str:
    """The memory part of a reply prompt, unescaped ('' when it has none)."""
    found = _MEMORIES.search(prompt)
    return html.unescape(found.group(1)) if found else ""


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def answer_terms(answer: str) -> set[str]:
    return {_stem(word) for word in words(answer) if word not in _FUNCTION_WORDS}


def score(chat: Conversation, question: Question, prompt: str | None) -> Score:
    turns = [chat.turn(dia) for dia in question.evidence]
    texts = [(turn.text or turn.caption or "") for turn in turns if turn is not None]
    texts = [text for text in texts if words(text)]
    if prompt is None:
        return Score(False, False, False, bool(texts))
    memory_words = without_question(memories_of(prompt), question.text).split()
    found = [contains_message(memory_words, text) for text in texts]
    stems = {_stem(word) for word in memory_words}
    terms = answer_terms(question.answer)
    return Score(
        bool(found) and all(found),
        any(found),
        bool(terms) and terms <= stems,
        bool(texts),
    )
