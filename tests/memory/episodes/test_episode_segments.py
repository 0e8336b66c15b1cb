"""Segmentation on crafted chats: silence, a topic shift that holds, a marker, no flapping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.episodes import SegmentMessage, SegmentRules, segment
from memory.episodes._segment import Segment

START = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def chat(*lines: tuple[int, str], gap_minutes: float = 1.0) -> list[SegmentMessage]:
    """(minutes after the previous, text) pairs -> messages by alternating authors."""
    at = START
    messages = []
    for index, (minutes, text) in enumerate(lines):
        at += timedelta(minutes=minutes or gap_minutes)
        messages.append(SegmentMessage(1000 + index, at, 1 + index % 3, text))
    return messages


TRIP = [
    (1, "planning the camping trip to the lake next weekend"),
    (1, "the lake trip needs tents and a camping stove"),
    (1, "I can bring the tents for the camping trip"),
    (1, "who drives to the lake on saturday morning"),
    (1, "I drive, the car fits four tents and the stove"),
]
BUILD = [
    (1, "the compiler build broke after the rust upgrade"),
    (1, "cargo build fails with a linker error since the upgrade"),
    (1, "try cleaning the cargo target directory and rebuild"),
]


def sizes(parts: list[Segment]) -> list[int]:
    return [len(part.messages) for part in parts]


def test_silence_starts_a_new_episode() -> None:
    messages = chat(*TRIP, (200, "morning all, the lake trip tents are packed"), (1, "nice"))
    assert sizes(segment(messages, SegmentRules())) == [5, 2]
    # A guild with a longer silence keeps it one episode.
    assert sizes(segment(messages, SegmentRules(silence=timedelta(hours=4)))) == [7]


def test_a_topic_shift_that_holds_for_two_messages_cuts_before_it() -> None:
    parts = segment(chat(*TRIP, *BUILD), SegmentRules())
    assert sizes(parts) == [5, 3]
    assert parts[1].first.content.startswith("the compiler build")


def test_one_off_topic_line_does_not_flap() -> None:
    lines = [*TRIP[:4], (1, "did anyone watch the football final yesterday evening"), TRIP[4]]
    assert sizes(segment(chat(*lines), SegmentRules())) == [6]


def test_short_lines_neither_shift_nor_confirm() -> None:
    lines = [*TRIP, (1, "lol"), (1, "ok"), (1, "yes")]
    assert sizes(segment(chat(*lines), SegmentRules())) == [8]


def test_an_explicit_marker_starts_a_new_episode() -> None:
    for marker in ("anyway, the lake trip tents again", "New topic: tents", "кстати, палатки"):
        parts = segment(chat(*TRIP[:3], (1, marker), (1, "sure")), SegmentRules())
        assert sizes(parts) == [3, 2], marker


def test_cutting_again_from_an_episode_start_gives_the_same_episodes() -> None:
    messages = chat(*TRIP, *BUILD, (240, "anyone up for the lake trip again"), *TRIP[:2])
    whole = segment(messages, SegmentRules())
    assert sizes(whole) == [5, 3, 3]
    # From the second episode's first message (what a live re-cut does): the same cuts.
    again = segment(messages[5:], SegmentRules())
    assert [part.first.message_id for part in again] == [
        part.first.message_id for part in whole[1:]
    ]
    # Message by message or all at once: the same episodes.
    assert sizes(segment(messages, SegmentRules())) == sizes(whole)


def test_an_episode_never_grows_past_its_cap() -> None:
    lines = [(1, "the lake trip tents and stove again")] * 25
    assert sizes(segment(chat(*lines), SegmentRules(max_messages=10))) == [10, 10, 5]


def test_after_a_pause_one_line_on_a_new_topic_is_enough() -> None:
    # 50 minutes of quiet, then the build: a new conversation at once.
    parts = segment(chat(*TRIP, (50, BUILD[0][1]), *BUILD[1:]), SegmentRules())
    assert sizes(parts) == [5, 3]
    # A greeting after the pause goes with the conversation it opens.
    parts = segment(chat(*TRIP, (50, "hey all"), *BUILD), SegmentRules())
    assert sizes(parts) == [5, 4] and parts[1].first.content == "hey all"
    # The same topic after a pause stays one episode.
    again = (50, "back to the lake trip: the tents and the stove are packed")
    assert sizes(segment(chat(*TRIP, again, TRIP[0]), SegmentRules())) == [7]


CHATTER = [
    (1, "so much rain this week again"),
    (1, "my phone battery is almost dead"),
    (1, "just finished cleaning the kitchen floor"),
]


def test_chatter_off_topic_in_different_directions_does_not_cut() -> None:
    # Three shifted lines in a row, but no two share a topic: still the trip's episode.
    assert sizes(segment(chat(*TRIP, *CHATTER, TRIP[1]), SegmentRules())) == [9]


def test_two_lines_on_one_new_topic_cut_even_after_chatter() -> None:
    # Chatter first, then the build twice: the cut falls before the build, not the chatter.
    parts = segment(chat(*TRIP, CHATTER[0], *BUILD[:2]), SegmentRules())
    assert sizes(parts) == [6, 2]
    assert parts[1].first.content == BUILD[0][1]


def test_a_line_said_twice_is_not_a_new_topic() -> None:
    echo = (1, "my phone battery is almost dead")
    assert sizes(segment(chat(*TRIP, echo, echo, TRIP[2]), SegmentRules())) == [8]


def test_a_new_topic_whose_first_lines_share_one_word_cuts_once_two_lines_hold() -> None:
    ramen = [
        (1, "anyone hungry for ramen tonight"),
        (1, "ramen sounds great"),  # one word in common: not yet a topic
        (1, "ramen tonight at the fifth street place"),
        (1, "the fifth street place closes at ten"),  # fifth street place: a topic
        (1, "then fifth street at eight, see you there"),
    ]
    # The lines given up join the trip's episode, but not its words: "ramen tonight ..." is
    # still off the trip's topic when it comes, and with the next line it holds.
    parts = segment(chat(*TRIP, *ramen), SegmentRules())
    assert sizes(parts) == [7, 3]
    assert parts[1].first.content == "ramen tonight at the fifth street place"
