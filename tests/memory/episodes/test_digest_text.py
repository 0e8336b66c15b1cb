"""The digest's text (issue 37.10): a busy episode names a few participants and counts the
rest, says them once, and every episode of the day keeps its entry."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from memory.episodes import Episode
from memory.episodes._digest import compose

START = datetime(2026, 5, 6, 9, tzinfo=UTC)


def _episode(number: int, members: int) -> Episode:
    ids = tuple(range(100, 100 + members))
    talked = ", ".join(f"Member{i}" for i in ids) + " talked."
    return Episode(
        id=number,
        guild_id=1,
        channel_id=10 + number,
        first_message_id=1000 * number,
        last_message_id=1000 * number + members,
        started_at=START + timedelta(hours=number),
        ended_at=START + timedelta(hours=number, minutes=30),
        message_count=members * 2,
        member_ids=ids,
        state="closed",
        title=f"topic {number}",
        summary=f"{talked} Member100: the plan for topic {number} is settled",
        open_loops=(),
    )


def test_a_busy_episode_counts_its_crowd_and_crowds_out_no_other() -> None:
    episodes = [_episode(1, 40), _episode(2, 40), _episode(3, 2)]
    names = {user_id: f"Member{user_id}" for user_id in range(100, 140)}
    text = compose(date(2026, 5, 6), episodes, names)
    entries = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(entries) == 3 and "more" not in text
    assert "(Member100, Member101, Member102 and 37 others)" in entries[0]
    assert entries[0].count("Member139") == 0  # not listed, not repeated by the summary
    assert "talked." not in entries[0] and "the plan for topic 1" in entries[0]
    assert "(Member100, Member101)" in entries[2]
    assert len(text) <= 2000
