"""A requests-per-minute limit shared by every process on one database.

Each request reserves the next free slot of its key in one statement: a slot is
`60 / requests_per_minute` seconds after the previous one, or now when the key has been idle.
The caller then waits until its slot. Reservations are serialised by the row lock, so N
processes together never start more than the limit, whatever each of them does.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from db.types import Executor, fetch_one

_RESERVE = """
INSERT INTO llm_rate_slots AS r (key, next_slot) VALUES ($1, clock_timestamp() + $2)
ON CONFLICT (key) DO UPDATE SET next_slot = greatest(r.next_slot, clock_timestamp()) + $2
RETURNING r.next_slot - $2 AS slot, clock_timestamp() AS now
"""


async def reserve_slot(db: Executor, key: str, spacing: timedelta) -> timedelta:
    """Reserve the next request slot of `key`; how long to wait before using it."""
    row = await fetch_one(db, _RESERVE, key, spacing)
    slot: datetime = row["slot"]
    now: datetime = row["now"]
    return max(timedelta(0), slot - now)
