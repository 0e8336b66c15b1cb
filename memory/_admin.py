"""The dashboard's reads, opened from an open `Memory` (the front door's part of issue 36).

Kept beside `_open.py` rather than in it: the dashboard is one front end among several, and
the views it needs (counts for charts, a member's facts with privacy applied) are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory._open import Memory
from memory.admin import ActivityViews, MemberViews


@dataclass(frozen=True, slots=True)
class AdminViews:
    activity: ActivityViews
    members: MemberViews


def admin_views(memory: Memory) -> AdminViews:
    """Read-only views over the same pool (and statement timeout) as every service."""
    return AdminViews(
        activity=ActivityViews(memory.pool, memory.usage_recorder.prices),
        members=MemberViews(memory.pool),
    )
