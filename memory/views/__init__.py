"""The admin's window (`memorybot dashboard`): read-only views of what the bot holds, does and
costs, with the bot's privacy rules applied before anything leaves this package (forgotten
statements dropped, counts rather than words where a page only needs a shape).
"""

from __future__ import annotations

from memory.views._activity import ActivityViews, DayCount, GuildSummary, UsageDay
from memory.views._member import FactEvent, LearnedView, MemberViews

__all__ = [
    "ActivityViews",
    "DayCount",
    "FactEvent",
    "GuildSummary",
    "LearnedView",
    "MemberViews",
    "UsageDay",
]
