"""Answers name members as the prompt does (`Sam: note`): no handle legend, no 18-digit ids,
and two members who share a display name are still told apart."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import asyncpg

from db.messages import insert_messages
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.llm import PromptMember
from memory.llm.offline import HANDLERS
from memory.llm.tasks import DailySummaries, by_member, member_keys, split_keyed
from memory.members import distinct_names
from tests.memory.hierarchy_support import (
    ALICE,
    BOB,
    GUILD,
    TODAY,
    add_members,
    full,
    manager,
    message,
    model,
)

SAM = PromptMember(user_id=1, name="Sam")
SAM_TOO = PromptMember(user_id=2, name="sam")
DR = PromptMember(user_id=3, name="Dr: Who <3", aliases=["Doc"])


def test_a_name_taken_twice_gets_a_number_and_both_map_back() -> None:
    members = [SAM, SAM_TOO, DR]
    assert member_keys(members) == ["Sam", "sam (2)", "Dr: Who <3"]
    answer = DailySummaries(
        summaries=[
            "Sam: went climbing.",
            "sam (2): fixed a bike.",
            "Dr: Who &lt;3: time travel talk.",  # the escaped spelling the prompt showed
            "Doc: also likes tea.",  # an alias only one member has
            "Bot: answered questions.",  # not a target: ignored
        ]
    )
    assert by_member(answer, members, 300) == {
        1: "went climbing.",
        2: "fixed a bike.",
        3: "time travel talk. also likes tea.",
    }


def test_the_earlier_object_shape_is_still_read() -> None:
    answer = DailySummaries.model_validate(
        {"summaries": [{"user_id": "Sam", "summary": "went climbing."}, "sam (2): biked."]}
    )
    assert by_member(answer, [SAM, SAM_TOO], 300) == {1: "went climbing.", 2: "biked."}


def test_a_name_is_matched_in_any_case_even_where_case_changes_its_length() -> None:
    strasse = PromptMember(user_id=4, name="Straße")
    # Case folding makes "ß" two letters: the text after the name is still cut in the right place.
    assert split_keyed("STRASSE: went home.", [strasse]) == (4, "went home.")
    assert split_keyed("straße: went home.", [strasse]) == (4, "went home.")
    assert split_keyed("sam: went home.", [SAM, strasse]) == (1, "went home.")


def test_a_name_written_without_its_emoji_or_dots_still_finds_its_member() -> None:
    party = PromptMember(user_id=5, name="🎉 Dana.")
    assert split_keyed("Dana: went home.", [SAM, party]) == (5, "went home.")
    # two members left with the same letters: no guess
    assert split_keyed("Dana: hi", [party, PromptMember(user_id=6, name="dana")]) == (6, "hi")
    assert split_keyed("DANA!: hi", [party, PromptMember(user_id=6, name="d.ana")]) == (None, "hi")


def test_a_dash_after_the_name_is_read_like_a_colon() -> None:
    assert split_keyed("Sam - went climbing.", [SAM]) == (1, "went climbing.")
    assert split_keyed("@Sam: went climbing.", [SAM]) == (1, "went climbing.")
    assert split_keyed("Samuel - is someone else", [SAM]) == (None, "Samuel - is someone else")


def test_a_line_without_a_known_name_is_not_pinned_on_anyone() -> None:
    assert split_keyed("someone: did things", [SAM]) == (None, "did things")
    assert split_keyed("no colon at all", [SAM]) == (None, "no colon at all")


def test_a_second_member_with_a_taken_name_shows_with_their_username() -> None:
    members = {
        1: Member(GUILD, 1, username="alex_92", nickname="Alex"),
        2: Member(GUILD, 2, username="alexandra", nickname="alex"),
        3: Member(GUILD, 3, username="Alex"),
    }
    names = {uid: m.display_name for uid, m in distinct_names(members).items()}
    assert names == {1: "Alex", 2: "alex (alexandra)", 3: "Alex (2)"}


async def test_two_members_with_one_display_name_keep_their_own_news(
    db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await add_members(db_pool, {ALICE: "Alex", BOB: "Alex"})
    noon = datetime(TODAY.year, TODAY.month, TODAY.day, 9, tzinfo=UTC)
    await insert_messages(
        db_pool,
        [
            message(ALICE, "I got the job at the bakery", noon),
            message(BOB, "my bike got stolen at the station", noon + timedelta(minutes=1)),
        ],
    )
    provider = model(daily_summary=lambda request: HANDLERS["daily_summary"](request.inputs))
    memory = manager(db_pool, provider, FixedClock(noon + timedelta(hours=2)), telemetry)
    try:
        alice = await full(memory, GUILD, ALICE)
        bob = await full(memory, GUILD, BOB)
    finally:
        await memory.aclose()
    prompt = next(r.prompt for r in provider.requests if r.purpose == "daily_summary")
    assert "Alex: I got the job" in prompt and "Alex (2): my bike" in prompt
    assert alice is not None and "bakery" in alice and "bike" not in alice
    assert bob is not None and "bike" in bob and "bakery" not in bob


def test_answer_schemas_carry_no_titles_or_docstrings() -> None:
    """A provider sends the schema beside every prompt (Gemini bills it): no `"title": "User
    Id"` per field, no class docstring; the field descriptions stay."""
    schema = json.dumps(DailySummaries.model_json_schema())
    assert '"title"' not in schema and "eleven tokens" not in schema
    assert "name: text" in schema and "per member" in schema
    assert "third-person sentence" in schema  # the nested fact item keeps its descriptions
