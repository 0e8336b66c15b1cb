"""The read-only pages: overview, a guild, a member, a guild's settings.

Privacy as the bot keeps it: a member who opted out shows as "opted out" with nothing held;
episodes of restricted channels show as such, without their words; a member's facts and their
history come through `admin_views`, which take forgotten statements out first.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from bot.dashboard import overview_charts, ranges
from bot.dashboard.base import Dashboard, dashboard_of, render, stored_id
from bot.dashboard.charts import money
from bot.dashboard.events import last_errors
from memory.ports import breaker_report, describe_settings


def _int(request: web.Request, name: str, missing: str) -> int:
    return stored_id(request.match_info.get(name) or request.query.get(name, ""), name, missing)


async def _guild(request: web.Request) -> tuple[int, str, str]:
    """(id, name, time zone) of the guild in the path; 404 for one the bot does not know
    (the overview's unnamed guilds, as the console's, are known)."""
    board = dashboard_of(request)
    guild_id = _int(request, "guild_id", "no such guild")
    known = await board.views.activity.guild(guild_id)
    if known is None:
        raise web.HTTPNotFound(text="no such guild")
    return guild_id, known.name, known.timezone


def _day(request: web.Request) -> date | None:
    """`?day=YYYY-MM-DD`, a real calendar day; 400 with a line for anything else."""
    chosen = request.query.get("day", "").strip()
    if not chosen:
        return None
    try:
        day = date.fromisoformat(chosen)
    except ValueError:
        raise web.HTTPBadRequest(text=f"day must be a date as YYYY-MM-DD, not {chosen!r}") from None
    if not date(1970, 1, 2) <= day <= date(9999, 12, 30):
        raise web.HTTPBadRequest(text=f"day {chosen} is out of range")
    return day


def local(moment: datetime, timezone: str) -> str:
    return moment.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d %H:%M")


async def overview(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    memory = board.memory
    key = ranges.chosen(request)
    guilds = await board.views.activity.guilds()
    drawn = await overview_charts.build(board, key, guilds)
    usage = drawn.usage
    today = datetime.now(UTC).date()
    queue = memory.worker.queue
    sizes, held = await asyncio.gather(queue.sizes(), queue.held())
    return render(
        request,
        "overview.html",
        title="Overview",
        guilds=list(zip(guilds, drawn.messages, strict=True)),
        charts=drawn.charts,
        span=drawn.span,
        ranges=ranges.links(key),
        totals=_totals(usage),
        budget_limit=memory.token_budget.limit,
        budget_spent=await memory.token_budget.spent(today),
        breakers=breaker_report(memory.settings.log_dir) or "all closed",
        jobs=[job for job in sizes if job.status in ("queued", "picked")],
        held=held,
        errors=last_errors(memory.settings.log_dir, limit=10),
        money=money,
    )


def _totals(usage: list[Any]) -> dict[str, object]:
    return {
        "calls": sum(line.calls for line in usage),
        "failed": sum(line.failed for line in usage),
        "tokens": sum(line.input_tokens + line.output_tokens for line in usage),
        "estimated": sum(line.estimated_tokens for line in usage),
        "cost": sum(line.cost for line in usage),
        "unpriced": any(line.unpriced for line in usage),
    }


async def guild(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    memory = board.memory
    guild_id, name, timezone = await _guild(request)
    visibility = await memory.visibility.channels(guild_id)
    episodes = await memory.episodes.listing(guild_id, limit=200)
    channel_ids = set(visibility) | {episode.channel_id for episode in episodes}
    names = await memory.guild_settings.channel_names(guild_id, channel_ids)
    restricted = {cid for cid, (public, _, _) in visibility.items() if not public}
    channels = [
        (names.get(cid, f"#{cid}"), "restricted" if cid in restricted else "public")
        for cid in sorted(channel_ids, key=lambda cid: names.get(cid, str(cid)))
    ]
    by_day: dict[date, list[tuple[str, object, bool]]] = defaultdict(list)
    for episode in episodes:
        day = episode.started_at.astimezone(ZoneInfo(timezone)).date()
        hidden = episode.channel_id in restricted
        by_day[day].append(
            (names.get(episode.channel_id, f"#{episode.channel_id}"), episode, hidden)
        )
    members = await memory.members.all(guild_id)
    opted_out = await board.views.members.opted_out(guild_id)
    digest_day = _day(request) or (max(by_day) if by_day else None)
    digest = await memory.episodes.digest_text(guild_id, digest_day) if digest_day else ""
    key = ranges.chosen(request)
    chart = await overview_charts.guild_chart(board, key, guild_id, timezone)
    return render(
        request,
        "guild.html",
        title=name,
        guild_id=guild_id,
        guild_name=name,
        timezone=timezone,
        chart=chart,
        ranges=ranges.links(key),
        channels=channels,
        members=sorted(members, key=lambda m: m.display_name.lower()),
        opted_out=opted_out,
        days=sorted(by_day.items(), reverse=True),
        digest_day=digest_day,
        digest=await _named_channels(board, guild_id, digest),
        local=lambda moment: local(moment, timezone),
    )


async def _named_channels(board: Dashboard, guild_id: int, text: str) -> str:
    """A digest mentions channels as <#id>: show their names."""
    ids = {int(match) for match in re.findall(r"<#(\d+)>", text)}
    if not ids:
        return text
    names = await board.memory.guild_settings.channel_names(guild_id, ids)
    return re.sub(r"<#(\d+)>", lambda m: "#" + names.get(int(m[1]), m[1]), text)


async def member(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    memory = board.memory
    guild_id, guild_name, timezone = await _guild(request)
    user_id = _int(request, "user_id", "no such member")
    consent = await memory.privacy.consent(guild_id, user_id)
    if consent is not None and consent.state == "out":
        return render(
            request, "opted_out.html", title="Opted out", guild_id=guild_id, guild_name=guild_name
        )
    known = (await memory.members.get(guild_id, [user_id])).get(user_id)
    if known is None:
        raise web.HTTPNotFound(text="no such member")
    report = await memory.manager.stored_context(guild_id, user_id)
    learned = await board.views.members.learned(guild_id, user_id, known.names)
    history = await board.views.members.history(guild_id, user_id, known.names)
    people = {f.said_by for f in learned if f.said_by} | {e.actor_id for e in history if e.actor_id}
    names = await memory.members.display_names(guild_id, sorted(people))
    return render(
        request,
        "member.html",
        title=known.display_name,
        guild_id=guild_id,
        guild_name=guild_name,
        member=known,
        report=report,
        blob=await memory.facts.blob(guild_id, user_id),
        learned=learned,
        history=history,
        names=names,
        local=lambda moment: local(moment, timezone),
        timezone=timezone,
    )


async def settings(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    memory = board.memory
    guild_id, guild_name, _ = await _guild(request)
    current = await memory.guild_settings.refresh(guild_id)
    visibility = await memory.visibility.channels(guild_id)
    known = await memory.guild_settings.channels(guild_id)
    shown = {*visibility, *current.ignored_channel_ids}
    if current.digest_channel_id is not None:
        shown.add(current.digest_channel_id)
    names = {**known, **await memory.guild_settings.channel_names(guild_id, shown)}
    return render(
        request,
        "settings.html",
        title=f"{guild_name}: settings",
        guild_id=guild_id,
        guild_name=guild_name,
        settings=current,
        described=describe_settings(current, lambda cid: "#" + names.get(cid, str(cid))),
        # Every channel the guild knows; unmarked ones count as public, as the bot reads them.
        channels=sorted(
            (
                (cid, names.get(cid, str(cid)), visibility.get(cid, (True,))[0])
                for cid in {*known, *visibility}
            ),
            key=lambda channel: (channel[1].lower(), channel[0]),
        ),
    )


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/", overview)
    router.add_get("/guild/{guild_id}", guild)
    router.add_get("/guild/{guild_id}/member/{user_id}", member)
    router.add_get("/guild/{guild_id}/settings", settings)
