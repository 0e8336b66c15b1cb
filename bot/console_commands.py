"""The console's member controls (`/mine`, `/optout`, `/optin`) and `/summarize`: the same
faces as the `/memory` commands on Discord, answered as lines of text.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from memory.core.clock import local_day
from memory.core.models import Member
from memory.core.text import plural
from memory.ports import DayOutOfRange, FrontDoor, describe_mine, to_json


async def member_controls(
    memory: FrontDoor, guild_id: int, speaker: Member, command: str
) -> list[str]:
    """The member controls, as the current speaker."""
    privacy = memory.privacy
    await memory.writer.flush()
    subject = await privacy.subject_or_id(guild_id, str(speaker.user_id))
    name = speaker.display_name
    if command == "/optout":
        await privacy.opt_out(subject, actor_id=speaker.user_id, by_admin=False)
        return [f"(done: nothing about {name} is kept any more, and nothing new will be)"]
    if command == "/optin":
        await privacy.opt_in(
            guild_id,
            speaker.user_id,
            actor_id=speaker.user_id,
            by_admin=False,
        )
        return [f"(done: {name} is remembered from now on)"]
    document = await privacy.export(subject)
    path = _write_export(memory, guild_id, speaker, document)
    where = f"Everything, as JSON, is in {path} (the same document as `memorybot user export`)."
    return [describe_mine(document, optout_command="/optout", where=where)]


def _write_export(
    memory: FrontDoor, guild_id: int, speaker: Member, document: dict[str, Any]
) -> Path:
    """The whole export as a file only its owner may read (the console has no attachments)."""
    folder = Path(memory.settings.data_dir) / "exports"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"mine-{guild_id}-{speaker.user_id}.json"
    path.touch(mode=0o600)
    path.write_text(to_json(document), encoding="utf-8")
    return path


async def summarize_lines(memory: FrontDoor, guild_id: int, day_text: str | None) -> list[str]:
    """`/summarize [YYYY-MM-DD]`: close a day now, and what each member's summary says."""
    try:
        day = date.fromisoformat(day_text) if day_text else None
    except ValueError:
        return [f"not a date: {day_text} (use YYYY-MM-DD)"]
    await memory.writer.flush()
    if day is None:
        timezone = await memory.manager.timezone(guild_id)
        day = local_day(memory.clock.now(), timezone)
    try:
        await memory.manager.check_day(guild_id, day)
    except DayOutOfRange as exc:
        return [f"(nothing to summarise: {exc})"]
    result = await memory.manager.summarize_day(guild_id, day)
    if result.reason == "expired":
        lines = [f"(kept the stored summary of {day}: retention removed its messages)"]
    else:
        lines = [
            f"(summarised {day}: {plural(result.message_count, 'message')}, "
            f"{plural(result.llm_calls, 'LLM call')})"
        ]
    names = await memory.members.display_names(guild_id, list(result.summaries))
    for user_id, summary in result.summaries.items():
        if summary:
            lines.append(f"  {names[user_id]}: {summary}")
    return lines
