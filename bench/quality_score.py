"""Scoring one reply prompt against one question of bench/quality_data.py.

Prompts change shape as the reply path evolves (recalled hits gain dates, neighbours, resolved
relative dates; contexts quote or paraphrase), so nothing here parses the prompt: both sides
are reduced to lower-case words, and

- an evidence message is in the prompt when at least `COVERAGE` of its word trigrams are, or
  when all its words are, in order, within `SLACK` extra words (a hit cut short, or annotated
  inside - "two days ago (Sat 2023-05-06) I ran ..." - still counts; a paraphrase does not);
- an answer group is in the prompt when any of its alternatives is, as whole words;
- a never-said question carries false evidence when its unsaid term appears in the prompt
  beyond the question itself (the asking message recalled as evidence, or anything else).

The question is taken out of the prompt once before scoring: it is the <message> being
answered, not evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.quality_data import QualityChat, Question, words

COVERAGE = 0.8
SLACK = 12


@dataclass(frozen=True)
class Score:
    evidence: bool  # every evidence message is in the prompt (True when there is none)
    answer: bool  # every answer group is (True when there is none)
    false_evidence: bool  # a never-said term is echoed back


def _joined(text: str) -> str:
    return f" {' '.join(words(text))} "


def _trigrams(tokens: list[str]) -> set[tuple[str, ...]]:
    if len(tokens) < 3:
        return {tuple(tokens)}
    return {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}


def contains_message(prompt_words: list[str], message: str) -> bool:
    """Whether `message` is in a prompt (its words), by trigram coverage or in order."""
    said = words(message)
    wanted = _trigrams(said)
    if not said:
        return False
    size = len(next(iter(wanted)))
    have = {tuple(prompt_words[i : i + size]) for i in range(len(prompt_words) - size + 1)}
    if len(wanted & have) >= COVERAGE * len(wanted):
        return True
    return any(
        _in_order(prompt_words[start : start + len(said) + SLACK], said)
        for start, word in enumerate(prompt_words)
        if word == said[0]
    )


def _in_order(window: list[str], said: list[str]) -> bool:
    remaining = iter(window)
    return all(word in remaining for word in said)


def without_question(prompt: str, question: str) -> str:
    """The prompt's words (joined) with the asked question taken out once."""
    joined, asked = _joined(prompt), _joined(question)
    at = joined.find(asked)
    return joined if at < 0 else joined[:at] + " " + joined[at + len(asked) :]


def score(chat: QualityChat, question: Question, prompt: str | None) -> Score:
    """How `prompt` (None: the question got no reply prompt) serves `question`."""
    if prompt is None:
        return Score(not question.evidence_ids, not question.answer, False)
    rest = without_question(prompt, question.text)
    rest_words = rest.split()
    evidence = all(
        contains_message(rest_words, chat.line(message_id).content)
        for message_id in question.evidence_ids
    )
    answer = all(any(_joined(alt) in rest for alt in group) for group in question.answer)
    false_evidence = any(_joined(term) in rest for term in question.absent)
    return Score(evidence, answer, false_evidence)
