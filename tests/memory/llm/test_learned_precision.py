"""The offline learner against a labelled set of chat lines (tests/memory/llm/data/): what it
learns must be right (precision ≥ 0.9) and read as a whole sentence, and the issue's cases of
guessing (reported speech, jokes, hypotheticals) learn nothing."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from memory.llm import MemoryLLM, OfflineProvider, PromptMember, PromptMessage

DATA = Path(__file__).parent / "data" / "learned_facts.tsv"
# Words that leave a learned sentence unresolved or unfinished.
_PRONOUN = re.compile(r"\b(?:I|me|my|mine|we|our|you|your|he|him|his|she|they|them|their|it)\b")
_DANGLING = re.compile(r"\b(?:to|a|an|the|and|or|of|with|for|in|on|at|how|that|my)\.$", re.I)


def _labelled() -> list[tuple[str, str, list[str]]]:
    rows = []
    for raw in DATA.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        speaker, line, expected = raw.split("\t")
        facts = [] if expected.strip() == "-" else [f.strip() for f in expected.split(" | ")]
        rows.append((speaker, line, facts))
    return rows


async def _learned(speaker: str, line: str) -> list[str]:
    """What the offline provider learns about `speaker` from one line of their chat."""
    message = PromptMessage(
        message_id=1,
        timestamp=datetime(2024, 5, 1, 9, tzinfo=UTC),
        author_id=7,
        author_name=speaker,
        content=line,
    )
    _, learned = await MemoryLLM(OfflineProvider()).read_stretch(
        guild_id=1,
        day=date(2024, 5, 1),
        timezone="UTC",
        messages=[message],
        members=[PromptMember(user_id=7, name=speaker)],
        max_chars=300,
    )
    return [item.statement for item in learned]


def _same(left: str, right: str) -> bool:
    return left.strip().rstrip(".").lower() == right.strip().rstrip(".").lower()


async def test_learned_facts_are_precise_and_whole_sentences() -> None:
    rows = _labelled()
    assert len(rows) >= 100
    produced = correct = expected_total = found = 0
    wrong: list[str] = []
    for speaker, line, expected in rows:
        learned = await _learned(speaker, line)
        for statement in learned:
            assert statement.startswith(speaker) and statement.endswith("."), statement
            assert not _PRONOUN.search(statement[len(speaker) :]), statement
            assert not _DANGLING.search(statement), statement
            produced += 1
            if any(_same(statement, fact) for fact in expected):
                correct += 1
            else:
                wrong.append(f"{line!r} -> {statement!r}")
        expected_total += len(expected)
        found += sum(any(_same(s, fact) for s in learned) for fact in expected)
    precision = correct / produced
    assert precision >= 0.9, (precision, wrong)
    # It learns, too: most of what the lines say about their speaker.
    assert found / expected_total >= 0.75, (found, expected_total)


@pytest.mark.parametrize(
    "line",
    [
        'my brother said "I moved to Paris"',
        "I'm allergic to mondays lol",
        "if I moved to Lisbon I'd learn Portuguese",
        "I love to.",
        "I love how it's both a creative outlet and relaxing",
        "I love camping trips with my fam",
    ],
)
async def test_guesses_and_fragments_are_not_learned(line: str) -> None:
    assert await _learned("Gina", line) == []
