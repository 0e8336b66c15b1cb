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

"What did we talk about on <day>?" questions (bench/quality_days.py) have no answer words:
their evidence is carried when, for each session of that day, the prompt holds the stored
episode that starts it (its summary, or its title with the day's date) or at least half of the
session's lines with something to say (SAYING_WORDS words or more).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bench.quality_data import QualityChat, Question, words
from bench.quality_days import DAY_KIND, StoredEpisode

COVERAGE = 0.8
SLACK = 12
SAYING_WORDS = 4


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


def score(
    chat: QualityChat,
    question: Question,
    prompt: str | None,
    episodes: Mapping[int, StoredEpisode] | None = None,
) -> Score:
    """How `prompt` (None: the question got no reply prompt) serves `question`; `episodes`
    (first message id -> stored episode) score the day questions."""
    if prompt is None:
        return Score(not question.evidence_ids, not question.answer, False)
    rest = without_question(prompt, question.text)
    rest_words = rest.split()
    if question.kind == DAY_KIND:
        return Score(_day_carried(chat, question, rest_words, episodes or {}), True, False)
    evidence = all(
        contains_message(rest_words, chat.line(message_id).content)
        for message_id in question.evidence_ids
    )
    answer = all(any(_joined(alt) in rest for alt in group) for group in question.answer)
    false_evidence = any(_joined(term) in rest for term in question.absent)
    return Score(evidence, answer, false_evidence)


def _day_carried(
    chat: QualityChat,
    question: Question,
    prompt_words: list[str],
    episodes: Mapping[int, StoredEpisode],
) -> bool:
    """Every session of the asked day is in the prompt (see the module's docstring)."""
    joined = f" {' '.join(prompt_words)} "
    sessions: dict[int, list[str]] = {}
    for message_id in question.evidence_ids:
        line = chat.line(message_id)
        sessions.setdefault(line.session, []).append(line.content)
    firsts = {s.index: s.message_ids[0] for s in chat.sessions if s.index in sessions}
    for index, lines in sessions.items():
        episode = episodes.get(firsts[index])
        if (
            episode is not None
            and episode.summary
            and contains_message(prompt_words, episode.summary)
        ):
            continue
        day = chat.line(firsts[index]).at.date().isoformat()
        if (
            episode is not None
            and episode.title
            and contains_message(prompt_words, episode.title)
            and _joined(day) in joined
        ):
            continue
        saying = list(dict.fromkeys(text for text in lines if len(words(text)) >= SAYING_WORDS))
        found = sum(1 for text in saying if contains_message(prompt_words, text))
        if not saying or found * 2 < len(saying):
            return False
    return True
