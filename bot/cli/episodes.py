"""`memorybot episodes --guild G [--channel C] [--day D]` and `memorybot digest --guild G
--day D`: a guild's conversations as episodes, and the daily digest printed (not posted).

Admin tools: they read every channel (the digest itself only ever holds public ones).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, date, datetime, time, timedelta

from bot.cli import CliError, open_cli_memory
from bot.cli.bounds import whole
from bot.cli.channels import named_channels, resolve_channel
from bot.cli.lookup import find_guild
from bot.cli.options import GUILD, Subparsers, command, option
from memory.core.settings import Settings
from memory.ports import FrontDoor, listing_line


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day; use YYYY-MM-DD") from None


async def _channel(memory: FrontDoor, guild_id: int, text: str | None) -> int | None:
    """A channel id, or the one channel called `text` ("general", "#general")."""
    return None if text is None else await resolve_channel(memory, guild_id, text, "--channel")


def _since(day: date | None, now: datetime) -> datetime:
    """From where messages no episode covers yet are cut first (a day before `day`, so its
    local start in any time zone is in)."""
    if day is None:
        return now - timedelta(days=8)
    return datetime.combine(day, time(), UTC) - timedelta(days=1)


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "episodes",
        handle_episodes,
        GUILD,
        option("--channel", help="only this channel (id or name)"),
        option("--day", type=_day, help="only this day (YYYY-MM-DD, guild time zone)"),
        option("--limit", type=whole(1, 10_000), default=50, help="how many, 1-10000 (default 50)"),
        help="list a guild's conversations as episodes (title, summary, open loops)",
        description="Episodes of a guild's channels, newest first: when, where, state, title, "
        "summary and open loops. All channels (an admin tool).",
    )
    command(
        subparsers,
        "digest",
        handle_digest,
        GUILD,
        option("--day", type=_day, required=True, help="the day (YYYY-MM-DD)"),
        help="print a guild-day's digest without posting it",
        description="The daily digest of a guild-day as the bot would post it (public "
        "channels only), printed here; nothing is posted or recorded.",
    )


async def handle_episodes(args: argparse.Namespace, settings: Settings) -> int:
    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    async with open_cli_memory(settings) as memory:
        guild_id = await find_guild(memory, args.guild)
        channel_id = await _channel(memory, guild_id, args.channel)
        await memory.episodes.refresh(_since(args.day, memory.clock.now()))
        await memory.episodes.summarize_guild(guild_id)  # closed ones: as the worker would
        episodes = await memory.episodes.listing(
            guild_id, channel_id=channel_id, day=args.day, limit=args.limit
        )
        timezone = await memory.manager.timezone(guild_id)
        names = await memory.guild_settings.channel_names(
            guild_id, {episode.channel_id for episode in episodes}
        )
    if not episodes:
        print("no episodes", file=sys.stderr)
        return 1
    for episode in episodes:
        where = names.get(episode.channel_id, episode.channel_id)
        print(listing_line(episode, timezone, f"#{where}"))
    return 0


async def handle_digest(args: argparse.Namespace, settings: Settings) -> int:
    async with open_cli_memory(settings) as memory:
        guild_id = await find_guild(memory, args.guild)
        await memory.episodes.refresh(_since(args.day, memory.clock.now()))
        text = await memory.episodes.digest_preview(guild_id, args.day)
        text = await named_channels(memory, guild_id, text) if text else text
    if not text:
        print(f"nothing to say about {args.day}", file=sys.stderr)
        return 1
    print(text)
    return 0
