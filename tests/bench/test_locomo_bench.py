"""The LoCoMo bench: conversations become guilds as the benchmark dates them, questions are
asked by the right speaker, and only the prompt's memories count as evidence."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench import locomo
from bench.database import BenchServer
from bench.locomo_data import DatasetMissing, conversation, dataset_path, load, session_time
from bench.locomo_learner import Learned, judge
from bench.locomo_score import score
from bench.report import Reporter
from db.embedded import EmbeddedPostgres
from tests.support import needs_file


def _sample() -> dict[str, Any]:
    """A LoCoMo-shaped sample written here (the real data never enters the repository)."""
    return {
        "sample_id": "toy-1",
        "conversation": {
            "speaker_a": "Ada",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ada", "dia_id": "D1:1", "text": "I adopted a ferret named Biscuit"},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Look at my garden!",
                    "blip_caption": "a photo of tomatoes on a vine",
                },
            ],
            "session_2_date_time": "10:05 am on 2 June, 2023",
            "session_2": [
                {"speaker": "Ben", "dia_id": "D2:1", "text": "My tomatoes won a prize at the fair"},
            ],
        },
        "qa": [
            {
                "question": "What is Ada's ferret called?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "What did Ben grow and win with?",
                "answer": "tomatoes",
                "evidence": ["D1:2; D2:1"],
                "category": 1,
            },
            {
                "question": "What did Ada say about her cat?",
                "adversarial_answer": "nothing",
                "evidence": ["D1:1"],
                "category": 5,
            },
        ],
        "observation": {"session_1_observation": {"Ada": [["Ada has a ferret.", "D1:1"]]}},
    }


def test_sessions_are_dated_captions_kept_and_the_other_speaker_asks() -> None:
    chat = conversation(_sample(), 0)
    assert session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert [turn.at.date().isoformat() for turn in chat.turns] == [
        "2023-05-08",
        "2023-05-08",
        "2023-06-02",
    ]
    exported = chat.export()["messages"]
    assert exported[1]["attachments"][0]["description"] == "a photo of tomatoes on a vine"
    first, second, _ = chat.questions
    assert (first.asker, second.asker) == ("Ben", "Ada")  # the speaker it is not about
    assert second.evidence == ("D1:2", "D2:1")  # "D1:2; D2:1" is two turns
    assert chat.ask_at == datetime(2023, 6, 3, 12, tzinfo=UTC)
    assert chat.observations == (("Ada", "Ada has a ferret.", "D1:1"),)


def test_only_the_memories_count_as_evidence() -> None:
    chat = conversation(_sample(), 0)
    question = chat.questions[0]
    said = "I adopted a ferret named Biscuit"
    in_window = f"<memories></memories><conversation>{said}</conversation>"
    in_memories = f"<memories><recalled>{said}</recalled></memories><conversation/>"
    assert not score(chat, question, in_window).evidence_all
    found = score(chat, question, in_memories)
    assert found.evidence_all and found.answer_words
    assert not score(chat, question, None).evidence_any


def test_a_missing_dataset_is_one_line_and_a_skip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOCOMO_DATA", str(tmp_path / "absent.json.gz"))
    with pytest.raises(DatasetMissing, match=r"absent\.json\.gz"):
        load()
    monkeypatch.delenv("CI", raising=False)
    assert locomo.available() is None
    assert "skipped, missing: the LoCoMo development set" in capsys.readouterr().err
    monkeypatch.setenv("CI", "true")
    with pytest.raises(SystemExit, match=r"^missing: the LoCoMo development set"):
        locomo.available()


async def test_a_toy_conversation_goes_through_import_and_the_reply_path(
    pg_server: EmbeddedPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "toy.json"
    path.write_text(json.dumps([_sample()]), encoding="utf-8")
    monkeypatch.setenv("LOCOMO_DATA", str(path))
    server = BenchServer(pg_server.uri())
    report = Reporter()
    try:
        asked = await locomo.run_all(server, report, without_vectors=True)
    finally:
        await server.aclose()
    assert len(asked) == 3 and all(a.tokens for a in asked)
    ferret = next(a for a in asked if "ferret" in a.question.text)
    assert ferret.score.evidence_all  # recalled from the first session into the memories
    for embedder in ("local", "none"):  # the default install, then full text alone
        single = report.value(
            "locomo", "evidence_all_in_memories", category="single_hop", embedder=embedder
        )
        assert single == 1.0
        pooled = report.value("locomo", "prompt_tokens_p50", category="all", embedder=embedder)
        assert pooled > 0
        # One conversation: its own p50 is the pooled one, under its own name.
        spread = report.value(
            "locomo",
            "conversation_prompt_tokens_p50",
            embedder=embedder,
            conversation=asked[0].conversation,
        )
        assert spread == pooled


@needs_file(dataset_path(), "the LoCoMo development set")
async def test_the_development_half_runs_when_it_is_there(pg_server: EmbeddedPostgres) -> None:
    server = BenchServer(pg_server.uri())
    report = Reporter()
    try:
        asked = await locomo.run_all(server, report, conversations=1, every=25)
    finally:
        await server.aclose()
    assert asked and all(a.tokens for a in asked)
    assert 0 < report.value("locomo", "evidence_any_in_memories", category="all") <= 1


def test_the_learner_is_credited_only_for_its_member_and_the_observation_turn() -> None:
    chat = conversation(_sample(), 0)
    ada = chat.member_id("Ada")
    right = Learned("toy-1", ada, "Ada has a ferret named Biscuit.", ("D1:1",))
    assert judge(chat, [right]).found == 1
    other_turn = Learned("toy-1", ada, "Ada has a ferret.", ("D1:2",))
    other_member = Learned("toy-1", chat.member_id("Ben"), "Ben has a ferret.", ("D1:1",))
    unrelated = Learned("toy-1", ada, "Ada adopted Biscuit.", ("D1:1",))
    for wrong in (other_turn, other_member, unrelated):
        assert judge(chat, [wrong]).found == 0, wrong
    assert judge(chat, [right]).observations == 1
