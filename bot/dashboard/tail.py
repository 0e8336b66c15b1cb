"""The live telemetry tail: a page with filters, and its server-sent events.

The stream starts with the last matching events of the current file, then follows it (across a
rotation, as `memorybot telemetry tail -f` does), so an event any process writes to LOG_DIR, a
CLI command's included, shows up within a poll.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from bot.dashboard.base import dashboard_of, render
from bot.dashboard.events import parse, recent_events, row
from memory.ports import OPS, TELEMETRY_FILE, FileFollower

POLL_SECONDS = 0.3
PING_SECONDS = 15.0
HISTORY = 30


# Cache lookups are several per page view or reply: shown only when asked for (the op filter
# or the checkbox), so the tail shows what happened rather than how it was served.
QUIET_OPS = ("cache",)
OUTCOMES = ("ok", "error")


def _filters(request: web.Request) -> dict[str, str]:
    keys = ("op", "outcome", "guild", "quiet")
    return {key: request.query.get(key, "").strip() for key in keys}


def _matches(event: dict[str, Any], filters: dict[str, str]) -> bool:
    op = filters["op"]
    if op and not str(event.get("op", "")).startswith(op):
        return False
    if not op and not filters["quiet"] and event.get("op") in QUIET_OPS:
        return False
    if filters["outcome"] and str(event.get("outcome", "")) != filters["outcome"]:
        return False
    return not filters["guild"] or str(event.get("guild_id", "")) == filters["guild"]


async def page(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    guilds = await board.views.activity.guilds()
    filters = _filters(request)
    # The outcomes there are to choose from: those of the recent lines, and the one asked for.
    seen = {str(event.get("outcome", "")) for event in recent_events(board.memory.settings.log_dir)}
    outcomes = sorted({*OUTCOMES, *seen, filters["outcome"]} - {""})
    return render(
        request,
        "tail.html",
        title="Live telemetry",
        filters=filters,
        ops=sorted(OPS),
        outcomes=outcomes,
        quiet_ops=", ".join(QUIET_OPS),
        guilds=guilds,
        query=request.query_string,
    )


class _Names:
    """Guild names, time zones and member names for rows, looked up once each."""

    def __init__(self, request: web.Request) -> None:
        self._board = dashboard_of(request)
        self.guilds: dict[int, str] = {}
        self.zones: dict[int, str] = {}
        self.members: dict[tuple[int, int], str] = {}

    async def load(self) -> None:
        for guild in await self._board.views.activity.guilds():
            self.guilds[guild.guild_id] = guild.name
            self.zones[guild.guild_id] = guild.timezone

    async def shown(self, event: dict[str, Any]) -> dict[str, Any]:
        guild_id, user_id = str(event.get("guild_id", "")), str(event.get("user_id", ""))
        if guild_id.isdigit() and user_id.isdigit():
            key = (int(guild_id), int(user_id))
            if key not in self.members:
                found = await self._board.memory.members.display_names(key[0], [key[1]])
                self.members[key] = found.get(key[1], f"user {user_id}")
        zone = self.zones.get(int(guild_id)) if guild_id.isdigit() else None
        return row(event, zone, self.guilds, self.members)


async def stream(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    filters = _filters(request)
    log_dir = board.memory.settings.log_dir
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
    )
    await response.prepare(request)
    names = _Names(request)
    await names.load()
    follower = FileFollower(log_dir / TELEMETRY_FILE)  # from now: nothing written is missed
    try:
        past = [e for e in recent_events(log_dir) if _matches(e, filters)][-HISTORY:]
        for event in past:
            await _send(response, await names.shown(event))
        await response.write(b": following\n\n")
        idle = 0.0
        while True:
            lines = follower.poll()
            for event in filter(None, map(parse, lines)):
                if _matches(event, filters):
                    await _send(response, await names.shown(event))
            await asyncio.sleep(POLL_SECONDS)
            idle = 0.0 if lines else idle + POLL_SECONDS
            if idle >= PING_SECONDS:  # finds a closed browser tab
                await response.write(b": ping\n\n")
                idle = 0.0
    except ConnectionResetError:
        pass  # the browser went away
    finally:
        follower.close()
    return response


async def _send(response: web.StreamResponse, shown: dict[str, Any]) -> None:
    data = json.dumps(shown, ensure_ascii=False)
    await response.write(f"data: {data}\n\n".encode())


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/telemetry", page)
    router.add_get("/telemetry/events", stream)
