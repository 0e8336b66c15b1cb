"""How long a member's note may be in one pass: the day's notes stay about one summary long,
so later passes get what earlier ones left, never less than a floor (news late in the day
still gets a quote).
"""

from __future__ import annotations

from datetime import date, datetime

from db import notes as store
from db.types import Connection

# The room a member's notes share in a day, in summary lengths: later passes get what earlier
# ones left (at least NOTE_FLOOR), so a day's notes stay about one summary long.
DAY_ROOM = 1.2
# The least room a member's note gets in a pass, however much earlier passes noted.
NOTE_FLOOR = 100


async def note_caps(
    conn: Connection,
    guild_id: int,
    day: date,
    start: datetime,
    ids: list[int],
    note_chars: int,
) -> dict[int, int]:
    """Room left for each target's note where it is less than a whole note: what earlier
    passes left of DAY_ROOM, never less than NOTE_FLOOR. The notes are the day's summary, and
    what the member's narrative reads."""
    day_room = int(note_chars * DAY_ROOM)
    used = await store.noted_chars_before(conn, guild_id, day, start)
    caps = {}
    for user_id in ids:
        room = max(NOTE_FLOOR, day_room - used.get(user_id, 0) - 1)
        if room < note_chars:
            caps[user_id] = room
    return caps
