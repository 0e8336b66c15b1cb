"""Where the reply tools read: recall search, the member directory, contexts, learned facts.

Kept apart from the toolbox so the toolbox can be tested with plain functions, and so the
composition root wires one object.
"""

from __future__ import annotations

from datetime import date

from memory.core.viewer import Viewer
from memory.members import MemberDirectory
from memory.recall import RecallHit, RecallService
from memory.replies._composer import MemorySource
from memory.replies._tools import LearnedLines, ToolSources

# How long a tool's member_memory waits for a context (it races the reply's budget anyway).
MEMBER_MEMORY_BUDGET = 1.0
SEARCH_LIMIT = 6


def hit_line(hit: RecallHit) -> str:
    """One hit as the model reads it: when (weekday, date, time), who, where, what, and what
    its relative dates meant; a short line's neighbours follow it, indented."""
    if hit.kind != "message":
        return f"{hit.day_label} (summary of {hit.author_name}'s day): {hit.text}"
    lines = []
    for line in (*(c for c in hit.context if c.side == "before"), hit):
        lines.append(_said(line, indent=line is not hit))
    lines += [_said(c, indent=True) for c in hit.context if c.side != "before"]
    return "\n".join(lines)


def _said(hit: RecallHit, *, indent: bool) -> str:
    when = f"{hit.day_label} {hit.at:%H:%M}" if hit.at else hit.day_label
    where = f" in #{hit.channel_name}" if hit.channel_name else ""
    dates = f" [{'; '.join(hit.dates)}]" if hit.dates else ""
    return f"{'  ' if indent else ''}{when} {hit.author_name}{where}: {hit.text}{dates}"


def _in_range(hit: RecallHit, after: date | None, before: date | None) -> bool:
    day = hit.at.date() if hit.at else date.fromisoformat(hit.day[:10])
    return (after is None or day > after) and (before is None or day < before)


def build_tool_sources(
    recall: RecallService,
    directory: MemberDirectory,
    memory: MemorySource,
    learned: LearnedLines,
) -> ToolSources:
    async def search(
        guild_id: int,
        query: str,
        viewer: Viewer,
        member_id: int | None,
        after: date | None,
        before: date | None,
    ) -> list[str]:
        ranged = after is not None or before is not None
        hits = await recall.search(
            guild_id,
            query,
            user_id=member_id,
            limit=SEARCH_LIMIT * (4 if ranged else 1),
            viewer=viewer,
        )
        return [hit_line(hit) for hit in hits if _in_range(hit, after, before)][:SEARCH_LIMIT]

    async def member_memory(guild_id: int, user_id: int) -> str | None:
        return await memory.get_memories(guild_id, user_id, budget=MEMBER_MEMORY_BUDGET)

    async def find_member(guild_id: int, name: str) -> int | None:
        found = await directory.find(guild_id, name.lstrip("@"))
        return found[0].user_id if len(found) == 1 else None

    return ToolSources(search, member_memory, learned, find_member)
