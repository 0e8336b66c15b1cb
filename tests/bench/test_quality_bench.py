"""The quality bench keeps measuring what it claims: its chats hold the planted answers where
the questions say, its scorer tells evidence from echoes, and at a tiny size the whole run
through the console path prints a well-formed figure for every kind of question."""

from __future__ import annotations

import itertools
import json
import shlex
from datetime import timedelta

import pytest

from bench import quality
from bench.database import BenchServer
from bench.quality_data import ALL_KINDS, DAY_KIND, KINDS, date_words, generate, words
from bench.quality_days import StoredEpisode
from bench.quality_heldout import HELDOUT_KINDS
from bench.quality_score import score
from bench.report import Reporter
from db.embedded import EmbeddedPostgres

TINY = {"members": 3, "sessions": 6, "days": 20, "per_kind": 2}


def test_chats_are_seeded_and_sessions_are_bursts_hours_apart() -> None:
    chat = generate(seed=7)
    assert [line.content for line in generate(seed=7).lines] == [
        line.content for line in chat.lines
    ]
    assert [line.content for line in generate(seed=8).lines] != [
        line.content for line in chat.lines
    ]
    ordered = sorted(chat.sessions, key=lambda s: s.start)
    for before, after in itertools.pairwise(ordered):
        assert after.start - before.end >= timedelta(hours=3)
    for session in chat.sessions:
        lines = [chat.line(message_id) for message_id in session.message_ids]
        assert all(line.session == session.index for line in lines)
        assert (lines[0].at, lines[-1].at) == (session.start, session.end)
        assert {line.author for line in lines} <= set(session.members)
    assert sum(len(s.message_ids) for s in chat.sessions) == len(chat.lines)
    spread = generate(seed=7, channels=2)
    for channel_id in spread.channels:
        edges = spread.boundaries(channel_id)
        assert edges and all(first < last for first, last in edges)
        assert all(spread.line(first).channel_id == channel_id for first, _ in edges)
    assert sum(len(spread.boundaries(c)) for c in spread.channels) == len(spread.sessions)


def test_questions_point_at_the_messages_that_answer_them() -> None:
    chat = generate(seed=3, members=5, sessions=30, days=150, per_kind=10)
    assert {q.kind for q in chat.questions} == set(ALL_KINDS)
    for question in (q for q in chat.questions if q.kind == DAY_KIND):
        # The day's sessions of the channel, every message; the question names the day.
        sessions = {chat.line(message_id).session for message_id in question.evidence_ids}
        day = chat.sessions[min(sessions)].day
        assert {s.index for s in chat.sessions if s.day == day} == sessions
        assert len(question.evidence_ids) == sum(
            len(chat.sessions[index].message_ids) for index in sessions
        )
        assert any(alt in question.text for alt in date_words(day)[1:3])
    for question in (q for q in chat.questions if q.kind != DAY_KIND):
        assert question.asker != question.subject
        evidence = [chat.line(message_id) for message_id in question.evidence_ids]
        assert all(line.author == question.subject for line in evidence)
        if question.kind == "never_said":
            assert question.evidence_ids == () and question.answer == ()
            said = {word for line in chat.lines for word in words(line.content)}
            assert question.absent and not said & set(question.absent)
        elif question.kind == "across_sessions":
            assert len({line.session for line in evidence}) >= 2
        else:
            assert len(evidence) == 1
    yesterday = [
        q
        for q in chat.questions
        if q.kind == "when" and "yesterday" in chat.line(q.evidence_ids[0]).content
    ]
    for question in yesterday:
        said_on = chat.line(question.evidence_ids[0]).at.date()
        assert question.answer[0][0] == (said_on - timedelta(days=1)).isoformat()


def test_the_scorer_counts_evidence_and_answers_but_not_the_question_itself() -> None:
    chat = generate(seed=0)
    fact = next(q for q in chat.questions if q.kind == "single_fact")
    never = next(q for q in chat.questions if q.kind == "never_said")
    said = chat.line(fact.evidence_ids[0]).content
    quoted = f"<message>{fact.text}</message><recalled day='x'>{said} (Mon 8 May 2023)</recalled>"
    assert score(chat, fact, quoted).evidence and score(chat, fact, quoted).answer
    assert not score(chat, fact, f"<message>{fact.text}</message>").evidence
    # A hit annotated inside (a resolved date) still counts; the words alone, shuffled, do not.
    first, _, rest = said.partition(" ")
    annotated = f"<recalled>{first} (Sun 7 May 2023, Dana, #general) {rest}</recalled>"
    assert score(chat, fact, annotated).evidence
    shuffled = " ".join(reversed(said.split()))
    assert not score(chat, fact, f"<recalled>{shuffled}</recalled>").evidence
    assert not score(chat, fact, None).answer
    asked = f"<message>{never.text}</message>"
    assert not score(chat, never, asked).false_evidence
    assert score(chat, never, f"<recalled>{never.text}</recalled>{asked}").false_evidence


def test_a_day_question_is_carried_by_its_episode_or_half_its_lines() -> None:
    chat = generate(seed=0)
    day = next(q for q in chat.questions if q.kind == DAY_KIND)
    first = day.evidence_ids[0]
    stored = {first: StoredEpisode(first, "the lake trip", "Ann, Bo talked. Ann: tents are packed")}
    asked = f"<message>{day.text}</message>"
    assert not score(chat, day, asked, stored).evidence
    assert score(chat, day, f"{asked}<episode>{stored[first].summary}</episode>", stored).evidence
    iso = chat.line(first).at.date().isoformat()
    dated = f"{asked}<episode>{iso} 09:00: the lake trip.</episode>"
    assert score(chat, day, dated, stored).evidence
    assert not score(chat, day, f"{asked}<episode>the lake trip</episode>", stored).evidence
    saying = [
        text
        for text in dict.fromkeys(chat.line(i).content for i in day.evidence_ids)
        if len(words(text)) >= 4
    ]
    half = " ".join(saying[: (len(saying) + 1) // 2])
    assert score(chat, day, f"{asked}<recalled>{half}</recalled>", {}).evidence


async def test_a_tiny_run_through_the_console_prints_every_kinds_figures(
    pg_server: EmbeddedPostgres,
) -> None:
    server = BenchServer(pg_server.uri())
    report = Reporter()
    try:
        asked = await quality.run_in(server, report, **TINY)
    finally:
        await server.aclose()
    assert len(asked) == len(ALL_KINDS) * TINY["per_kind"]
    for kind in (*ALL_KINDS, "all"):
        assert report.value("quality", "no_reply_prompt", kind=kind) == 0, "every question asked"
        assert report.value("quality", "prompt_tokens_p50", kind=kind) > 100
        p50 = report.value("quality", "reply_overhead_p50_ms", kind=kind)
        assert 0 < p50 <= report.value("quality", "reply_overhead_p99_ms", kind=kind)
    for kind in ("single_fact", "when", "across_sessions", "all"):
        assert 0 <= report.value("quality", "evidence_in_prompt", kind=kind) <= 1
        assert 0 <= report.value("quality", "answer_words_in_prompt", kind=kind) <= 1
    assert 0 <= report.value("quality", "false_evidence", kind="never_said") <= 1
    assert report.value("quality", "evidence_in_prompt", kind=DAY_KIND) == 1.0
    # "all" stays over the recall kinds (comparable with runs before the day questions).
    recall = [a.score.evidence for a in asked if a.question.kind in KINDS[:3]]
    assert report.value("quality", "evidence_in_prompt", kind="all") == pytest.approx(
        sum(recall) / len(recall), abs=1e-3
    )
    with_evidence = [a for a in asked if a.question.evidence_ids]
    assert all(a.question.kind != "never_said" for a in with_evidence)


async def test_the_command_line_runs(
    pg_server: EmbeddedPostgres, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", pg_server.uri())
    args = "--members 2 --sessions 4 --days 10 --per-kind 1 --show"
    assert await quality.main(shlex.split(args)) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines() if line.strip()]
    assert {line["metric"] for line in lines} >= {"evidence_in_prompt", "false_evidence"}
    shown = [json.loads(line) for line in captured.err.splitlines() if line.startswith("{")]
    assert len(shown) == len(ALL_KINDS) + len(HELDOUT_KINDS)  # both splits, one question a kind
    assert {line["split"] for line in lines if line["metric"] == "evidence_in_prompt"} == {
        "tuned",
        "dev",
    }
