"""The offline provider keeps a member's facts through the same `MemoryLLM` tasks real models
get: remember (append, replace what it contradicts, merge duplicates, never re-add what was
forgotten, within the cap), forget, and merge."""

from __future__ import annotations

from typing import Any

import pytest

from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from memory.llm.tasks import ForgetOutput
from tests.memory.llm.offline_support import ALICE


@pytest.fixture
def llm() -> MemoryLLM:
    return MemoryLLM(OfflineProvider())


async def _remember(llm: MemoryLLM, blob: str, statement: str, **kwargs: Any) -> str:
    return await llm.remember(
        guild_id=9,
        member=ALICE,
        blob=blob,
        statement=statement,
        max_chars=int(kwargs.pop("max_chars", 500)),
        **kwargs,
    )


async def test_remember_appends_a_third_person_sentence(llm: MemoryLLM) -> None:
    blob = await _remember(llm, "", "alice lives in Paris")
    blob = await _remember(llm, blob, "likes pizza")
    blob = await _remember(llm, blob, "she plays the cello")
    assert blob == "alice lives in Paris. alice likes pizza. alice plays the cello."


async def test_remember_replaces_the_sentence_it_contradicts(llm: MemoryLLM) -> None:
    blob = "alice lives in Paris. alice likes pizza. alice works at the library."
    blob = await _remember(llm, blob, "alice lives in Berlin")
    assert blob == "alice lives in Berlin. alice likes pizza. alice works at the library."
    blob = await _remember(llm, blob, "alice hates pizza")
    assert "likes pizza" not in blob and "alice hates pizza." in blob
    blob = await _remember(llm, blob, "alice works at the bakery on Main Street")
    assert "library" not in blob and "bakery" in blob


async def test_remember_keeps_compatible_facts_and_merges_duplicates(llm: MemoryLLM) -> None:
    blob = "alice likes pizza. alice has a brother who lives in Rome."
    blob = await _remember(llm, blob, "alice likes sushi")
    blob = await _remember(llm, blob, "alice lives in Berlin")
    blob = await _remember(llm, blob, "Alice likes pizza")
    assert blob.count("pizza") == 1
    assert "sushi" in blob and "Rome" in blob and "Berlin" in blob


async def test_remember_never_readds_a_forgotten_statement(llm: MemoryLLM) -> None:
    blob = await _remember(
        llm,
        "alice lives in Berlin. alice likes pizza.",
        "alice likes pineapple on pizza",
        forgotten=["alice likes pizza"],
    )
    assert "pizza" not in blob
    assert blob == "alice lives in Berlin."


async def test_remember_respects_the_cap_and_keeps_the_new_fact(llm: MemoryLLM) -> None:
    blob = " ".join(f"alice visited city number {n}." for n in range(20))
    updated = await _remember(llm, blob, "alice lives in Berlin", max_chars=120)
    assert len(updated) <= 120
    assert updated.endswith("alice lives in Berlin.")


async def test_forget_removes_the_matching_fact(llm: MemoryLLM) -> None:
    result = await llm.forget(
        guild_id=9,
        member=ALICE,
        blob="alice lives in Berlin. Alice likes pizza. alice plays the cello.",
        statement="that she likes pizza",
    )
    assert result == ForgetOutput(found=True, blob="alice lives in Berlin. alice plays the cello.")


async def test_forget_of_an_absent_fact_reports_not_found(llm: MemoryLLM) -> None:
    blob = "alice lives in Berlin. alice plays the cello."
    result = await llm.forget(guild_id=9, member=ALICE, blob=blob, statement="alice has a dog")
    assert result == ForgetOutput(found=False, blob=blob)
    result = await llm.forget(guild_id=9, member=ALICE, blob=blob, statement="alice lives in Rome")
    assert result.found is False


async def test_merge_puts_facts_first_and_drops_repeats_and_conflicts(llm: MemoryLLM) -> None:
    text = await llm.summaries.merge_context(
        guild_id=9,
        member=ALICE,
        facts="alice lives in Berlin. alice plays the cello.",
        today='alice said: "I finally got the job at the bakery!". alice lives in Paris.',
        history='May 1: alice said: "the cello lessons are going great". alice plays the cello.',
        max_chars=400,
    )
    assert text.startswith("alice lives in Berlin. alice plays the cello.")
    assert "Today: alice said:" in text and "bakery" in text
    assert "Paris" not in text  # contradicts a fact: facts win
    assert text.count("alice plays the cello") == 1
    assert "cello lessons" in text
    assert len(text) <= 400


async def test_merge_never_returns_forgotten_statements(llm: MemoryLLM) -> None:
    text = await llm.summaries.merge_context(
        guild_id=9,
        member=ALICE,
        facts="alice lives in Berlin. alice likes pizza.",
        today='alice said: "pizza night again, I like pizza so much".',
        history="alice likes pizza and talks about it every day.",
        max_chars=400,
        forgotten=["alice likes pizza"],
    )
    assert "pizza" not in text
    assert text.startswith("alice lives in Berlin.")


async def test_merge_within_a_tight_cap(llm: MemoryLLM) -> None:
    facts = " ".join(f"alice has hobby number {n}." for n in range(30))
    text = await llm.summaries.merge_context(
        guild_id=9, member=ALICE, facts=facts, today="x said y.", history="", max_chars=100
    )
    # Over the budget the oldest facts go first: the newest is what a member most likely means.
    assert len(text) <= 100 and "alice has hobby number 29." in text
    assert "hobby number 0." not in text
