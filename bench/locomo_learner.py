"""The learner against LoCoMo's observations: what the offline learner kept from real chat.

LoCoMo's annotators wrote, per session and speaker, what each speaker revealed ("Melanie
signed up for a pottery class"), each with the turn it came from. After the bench's import
closed every day (the learner read every turn), two figures:

- recall: of the observations whose source turn exists, the share for which a fact was learned
  about that speaker from that very turn sharing a content word with the observation;
- precision: a fixed sample of what was learned (SAMPLE per conversation, chosen by a hash of
  the fact, so the sample moves only when the facts do) against hand labels in
  bench/locomo_labels.json: true when the fact is a lasting, correct statement about its member
  that its source turn says. The labels hold keys (conversation, turn, a hash of the fact) and
  verdicts, never LoCoMo's text. A fact nobody labelled yet is counted as unlabelled, and the
  figure says how many of the sample were.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from bench.locomo_data import Conversation
from bench.locomo_score import answer_terms

LABELS = Path(__file__).with_name("locomo_labels.json")
SAMPLE = 12


@dataclass(frozen=True)
class Learned:
    conversation: str
    member_id: int
    statement: str
    dia_ids: tuple[str, ...]

    @property
    def key(self) -> str:
        digest = hashlib.sha1(self.statement.encode()).hexdigest()[:12]
        return f"{self.conversation}:{','.join(self.dia_ids)}:{digest}"


@dataclass(frozen=True)
class LearnerScore:
    observations: int
    found: int
    sampled: list[Learned]


async def learned_facts(pool: asyncpg.Pool, chat: Conversation) -> list[Learned]:
    """Every fact the learner kept in the conversation's guild, current or superseded since."""
    dia_of = {turn.message_id: turn.dia_id for turn in chat.turns}
    rows = await pool.fetch(
        "SELECT user_id, statement, message_ids FROM learned_facts WHERE guild_id = $1 ORDER BY id",
        chat.guild_id,
    )
    return [
        Learned(
            chat.sample_id,
            row["user_id"],
            row["statement"],
            tuple(dia_of[m] for m in row["message_ids"] if m in dia_of),
        )
        for row in rows
    ]


def judge(chat: Conversation, learned: list[Learned]) -> LearnerScore:
    """Recall against the observations, and the sample whose labels give precision."""
    names = {word for speaker in chat.speakers for word in answer_terms(speaker)}
    by_turn: dict[tuple[int, str], list[set[str]]] = {}
    for fact in learned:
        for dia in fact.dia_ids:
            by_turn.setdefault((fact.member_id, dia), []).append(
                answer_terms(fact.statement) - names
            )
    observations = found = 0
    for speaker, text, dia in chat.observations:
        if chat.turn(dia) is None or speaker not in chat.speakers:
            continue
        observations += 1
        wanted = answer_terms(text) - names
        facts = by_turn.get((chat.member_id(speaker), dia), [])
        found += any(wanted & terms for terms in facts)
    ranked = sorted(learned, key=lambda fact: hashlib.sha1(fact.key.encode()).hexdigest())
    return LearnerScore(observations, found, ranked[:SAMPLE])


def labels(path: Path = LABELS) -> dict[str, bool]:
    if not path.is_file():
        return {}
    return {key: bool(value) for key, value in json.loads(path.read_text()).items()}
