"""Marking a channel restricted or public from a guild's settings page (`--allow-changes`).

The same service as `memorybot settings --channel C --visibility ...`: `memory.visibility.mark`,
which takes what shared memory drew from a channel now restricted out at once (notes,
summaries, learned facts, warm contexts in every process). The days it changes are then queued
for a worker to summarise again (`memorybot run` or `memorybot worker`), rather than summarised
inside the request as the CLI does: with a real model that can take minutes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web

from bot.dashboard.base import stored_id
from memory.ports import FrontDoor

_log = logging.getLogger(__name__)

VISIBILITIES = ("restricted", "public")


@dataclass(frozen=True, slots=True)
class ChannelMark:
    guild_id: int
    channel_id: int
    name: str
    public: bool

    @property
    def visibility(self) -> str:
        return "public" if self.public else "restricted"


async def asked_mark(memory: FrontDoor, fields: dict[str, str]) -> ChannelMark:
    """The mark the form asks for, of a channel the guild knows (400/404 otherwise)."""
    guild_id = stored_id(fields.get("guild_id", ""), "guild_id", "no such guild")
    channel_id = stored_id(fields.get("channel_id", ""), "channel_id", "no such channel")
    visibility = fields.get("visibility", "")
    if visibility not in VISIBILITIES:
        raise web.HTTPBadRequest(text="visibility must be restricted or public")
    known = await memory.guild_settings.channels(guild_id)
    if channel_id not in known:
        raise web.HTTPNotFound(text="no such channel in this guild")
    return ChannelMark(guild_id, channel_id, known[channel_id], visibility == "public")


async def describe(memory: FrontDoor, mark: ChannelMark) -> str:
    """What marking will do, for the confirmation page."""
    settings = await memory.guild_settings.get(mark.guild_id)
    if not mark.public and settings.memory_sources == "all":
        return (
            f"Mark #{mark.name} restricted: members who cannot read it never get its words "
            "through the bot. This guild builds shared memory from all channels "
            "(memory_sources=all), so notes and summaries keep drawing from it."
        )
    if mark.public:
        return (
            f"Mark #{mark.name} public: everyone can read it, so shared memory (notes, "
            "summaries, learned facts) is built from it again; its days are queued to be "
            "summarised again."
        )
    return (
        f"Mark #{mark.name} restricted: not everyone can read it, so what shared memory drew "
        "from it (notes, summaries, learned facts) goes now, members who cannot read it never "
        "get its words, and its days are queued to be summarised again without it."
    )


async def apply(memory: FrontDoor, mark: ChannelMark) -> tuple[str, str, str]:
    """(outcome, what happened, where to go back to)."""
    back = f"/guild/{mark.guild_id}/settings"
    changed = await memory.visibility.mark(mark.guild_id, mark.channel_id, public=mark.public)
    if not changed:
        return "unchanged", f"#{mark.name} was already marked {mark.visibility}.", back
    days = await memory.manager.due_days(mark.guild_id)
    queued = [day for day in days if await memory.worker.queue.close_day(mark.guild_id, day)]
    _log.info(
        "guild %s: channel %s marked %s from the dashboard, %d day(s) queued",
        mark.guild_id,
        mark.channel_id,
        mark.visibility,
        len(queued),
    )
    return (
        "ok",
        f"#{mark.name} marked {mark.visibility}; {len(days)} day(s) to summarise again are "
        "queued for the worker (`memorybot run` or `memorybot worker`).",
        back,
    )
