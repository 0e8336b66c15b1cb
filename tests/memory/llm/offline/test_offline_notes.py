"""Offline notes leave out what a summariser would: replies that do not speak to the member
they answer, the leading @name of a mention, a speaker's name repeated within a note."""

from __future__ import annotations

from datetime import date

from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from tests.memory.llm.offline_support import ALICE, BOB, CAROL, chat_messages

MEMBERS = [ALICE, BOB, CAROL]


async def _day(
    chat: list[tuple[int, str, str, int | None]], max_chars: int = 300
) -> dict[int, str]:
    """Each member's notes on `chat` (author id, author name, content, reply-to index), each
    at most `max_chars`."""
    messages = chat_messages(chat)
    notes, _ = await MemoryLLM(OfflineProvider()).summaries.read_stretch(
        guild_id=9,
        day=date(2024, 5, 1),
        timezone="UTC",
        messages=messages,
        members=MEMBERS,
        max_chars=max_chars,
    )
    return notes


async def test_a_reply_is_news_about_the_member_only_when_it_speaks_to_them() -> None:
    chat: list[tuple[int, str, str, int | None]] = [
        (1, "alice", "I finally got the job at the bakery! starting monday", None),
        (2, "bob", "my cat knocked the plant over again, third time this week", 0),
        (3, "carol", "@alice so proud of the bakery job, first shift monday", None),
    ]
    summaries = await _day(chat)
    # bob's reply is about his cat: his own note has it, alice's does not.
    assert "cat knocked the plant over" in summaries[2]
    assert "cat" not in summaries[1]
    # carol's mention is about alice: quoted once under her label, without the @alice.
    assert (
        'carol said about alice: "so proud of the bakery job, first shift monday"' in summaries[1]
    )


async def test_a_note_names_each_speaker_once() -> None:
    chat: list[tuple[int, str, str, int | None]] = [
        (1, "alice", "I finally got the job at the bakery! starting monday", None),
        (2, "bob", "congrats, your bread is the best in town", 0),
        (1, "alice", "my sister is visiting from Lyon next weekend", None),
    ]
    alice = (await _day(chat))[1]
    assert alice.count("alice said:") == 1
    assert "bakery" in alice and "sister is visiting from Lyon" in alice


async def test_a_note_quotes_the_days_news_not_its_first_and_last_words() -> None:
    chat: list[tuple[int, str, str, int | None]] = [
        (1, "alice", "Hey everyone! Good morning, how are you all doing today?", None),
        (2, "bob", "morning! doing good, how are you doing today", None),
        (1, "alice", "lol ok", None),
        (
            1,
            "alice",
            "Great to see you all. I finally adopted a greyhound named Biscuit from the shelter"
            " in Leeds.",
            None,
        ),
        (3, "carol", "the weather is nice today, going for a walk", None),
        (1, "alice", "ok see you all later, bye!", None),
    ]
    alice = (await _day(chat))[1]
    assert "adopted a greyhound named Biscuit from the shelter in Leeds" in alice
    assert "Good morning" not in alice and "see you all later" not in alice
    assert "Great to see you all" not in alice  # the greeting of the news message stays out
    assert "lol ok" not in alice


async def test_what_the_whole_day_talks_about_gives_way_to_a_members_own_news() -> None:
    chat: list[tuple[int, str, str, int | None]] = [
        (2, "bob", "the game last night was unreal, what a final", None),
        (3, "carol", "that final game was unreal, the last minute goal", None),
        (1, "alice", "the final game was unreal, what a last minute goal", None),
        (2, "bob", "the goal in the last minute of the final game", None),
        (1, "alice", "Biscuit the greyhound arrives from Leeds tomorrow", None),
    ]
    notes = await _day(chat, max_chars=90)
    assert "Biscuit the greyhound arrives from Leeds tomorrow" in notes[1]
    assert "game" not in notes[1]
