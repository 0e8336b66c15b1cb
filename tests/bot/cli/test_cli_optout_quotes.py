"""An opted-out or purged member's words leave what others' memory quoted of them.

alice warns everyone that bob is allergic to Kiwiberry jam; the day closes (its notes and
summaries written by the model: offline, an OpenAI-compatible server, Gemini); then alice
opts out (or is purged). bob's notes, day summaries, history, context, episodes and digest
must no longer carry her name or her words, at once, and `memory show` for bob must not serve
them. The two remote models are fake servers on 127.0.0.1 (the real SDKs talk to them) whose
answers quote and paraphrase alice, as a real model would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from db.guilds import ensure_guild
from db.members import upsert_members
from db.messages import insert_messages
from memory.core.models import ChatMessage, Member
from tests.memory.llm.fake_http import (
    FakeHTTPServer,
    Recorded,
    Reply,
    gemini_text,
    openai_text,
)

GUILD, CHANNEL = 800000000000000001, 800000000000000050
ALICE, BOB, CAROL = 800000000000000101, 800000000000000102, 800000000000000103
DAY = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
NOW = (DAY + timedelta(days=1, hours=8)).isoformat()
WARNING = "careful everyone, bob is allergic to Kiwiberry jam, keep it away from him"


def _model_notes(prompt: str) -> dict[str, object]:
    """What the fake model writes: like a real one, it quotes and paraphrases alice when her
    words (or her name) are in what it reads, and only then."""
    prompt = prompt.lower()
    bob = "bob: bob planned the Saturday hike to the lake."
    carol = "carol: carol will bring the maps."
    if "kiwiberry" in prompt:
        bob = (
            'bob: alice said about bob: "careful everyone, bob is allergic to Kiwiberry jam". '
            "He has a kiwiberry allergy, the group was warned; bob planned the Saturday hike."
        )
        carol += " She heard that bob must avoid Kiwiberry jam."
    elif "alice" in prompt:
        bob += " alice was there."
    summaries = [bob, carol] + (["alice: alice warned everyone."] if "alice" in prompt else [])
    return {"summaries": summaries, "facts": []}


# Words of alice that must be gone everywhere (case-insensitive).
HERS = ("kiwiberry", "alice")


async def _seed(db_pool: asyncpg.Pool) -> None:
    await ensure_guild(db_pool, GUILD, "Sample Hikers")
    await upsert_members(
        db_pool,
        [
            Member(GUILD, ALICE, username="alice"),
            Member(GUILD, BOB, username="bob"),
            Member(GUILD, CAROL, username="carol"),
        ],
    )
    lines = [
        (ALICE, WARNING),
        (BOB, "thanks, I am planning the Saturday hike to the lake"),
        (CAROL, "I will bring the maps for the Saturday hike"),
        (BOB, "great, we leave at eight from the station"),
    ]
    await insert_messages(
        db_pool,
        [
            ChatMessage(900_001 + i, GUILD, CHANNEL, author, text, DAY + timedelta(minutes=i))
            for i, (author, text) in enumerate(lines)
        ],
    )


def _cli(*argv: str) -> int:
    return main(list(argv))


async def _run(*argv: str) -> int:
    return await asyncio.to_thread(_cli, *argv)


def _answer(recorded: Recorded, gemini: bool) -> Reply:
    text = json.dumps(_model_notes(json.dumps(recorded.body)))
    return Reply(body=gemini_text(text) if gemini else openai_text(text))


@pytest.fixture(params=["offline", "openai", "gemini"])
async def provider(
    request: pytest.FixtureRequest, cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[str]:
    """The model chain the day is closed with (the offline one last, as configured)."""
    name: str = request.param
    if name == "offline":
        yield name
        return
    server = FakeHTTPServer()
    server.responder = lambda recorded: _answer(recorded, gemini=name == "gemini")
    await server.start()
    monkeypatch.setenv("LLM_PROVIDER", name)
    if name == "openai":
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", "fake-model")
    else:
        monkeypatch.setenv("GEMINI_API_KEY", "fake-key")
        monkeypatch.setenv("GEMINI_BASE_URL", server.base_url)
    try:
        yield name
    finally:
        await server.stop()


async def _derived_text(db_pool: asyncpg.Pool) -> str:
    """Every piece of derived text the guild holds, lower-cased, one block."""
    parts = []
    for sql in (
        "SELECT note AS t FROM day_notes WHERE guild_id = $1",
        "SELECT summary AS t FROM daily_summaries WHERE guild_id = $1",
        "SELECT summary AS t FROM historical_summaries WHERE guild_id = $1",
        "SELECT context AS t FROM merged_contexts WHERE guild_id = $1",
        "SELECT title || ' ' || summary || ' ' || array_to_string(open_loops, ' ') AS t"
        " FROM episodes WHERE guild_id = $1",
        "SELECT text AS t FROM episode_digests WHERE guild_id = $1",
    ):
        parts += [row["t"] for row in await db_pool.fetch(sql, GUILD)]
    return "\n".join(parts).lower()


@pytest.mark.parametrize("how", ["optout", "purge"])
async def test_her_words_leave_others_notes_and_summaries(
    provider: str, how: str, db_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(db_pool)
    day = DAY.date().isoformat()
    assert await _run("summarize", "--guild", "Sample Hikers", "--date", day) == 0
    show = ("memory", "show", "--guild", "Sample Hikers", "--user", "bob", "--now", NOW)
    assert await _run(*show) == 0
    episodes = ("episodes", "--guild", "Sample Hikers", "--day", day)
    assert await _run(*episodes) == 0  # summarises the closed episodes, as the worker would
    # The day's digest, as the digest job stores it before posting.
    await db_pool.execute(
        "INSERT INTO episode_digests (guild_id, day, channel_id, text) VALUES ($1, $2, $3, $4)",
        GUILD,
        DAY.date(),
        CHANNEL,
        "Yesterday: alice warned that bob is allergic to Kiwiberry jam; a hike is planned.",
    )
    before = capsys.readouterr().out.lower()
    # The day closed with her words in bob's memory (else the test proves nothing).
    assert "kiwiberry" in before, before
    told = await db_pool.fetchval("SELECT string_agg(summary, ' ') FROM episodes")
    assert "kiwiberry" in (told or "").lower(), told  # the episode told it too
    held = await _derived_text(db_pool)
    assert "kiwiberry" in held
    if provider != "offline":  # the model's own words (a paraphrase) were stored
        assert "the group was warned" in held, held

    assert await _run("user", how, "--guild", "Sample Hikers", "--user", "alice", "--yes") == 0
    capsys.readouterr()
    # At once: nothing stored quotes her, before any worker or later build runs.
    stored = await _derived_text(db_pool)
    for word in HERS:
        assert word not in stored, (word, stored)
    # And what the admin is shown of bob, stored or rebuilt, does not either.
    assert await _run(*show, "--no-build") == 0
    assert await _run(*show) == 0
    assert await _run(*episodes) == 0
    after = capsys.readouterr().out.lower()
    for word in HERS:
        assert word not in after, (word, after)
    assert "leave at eight" in after or "saturday hike" in after, after  # bob's day stays
