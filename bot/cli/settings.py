"""`memorybot settings --guild G [--timezone TZ] [--search-config NAME] [--memory-sources
public|all] [--channel C --visibility restricted|public]`: a guild's settings.

The same settings as `/memory settings`, for an admin at the console: shown, or changed and
shown. A new search configuration re-indexes the guild's stored messages and summaries, which
for a large imported server is better waited for here than inside a slash command. Marking a
channel's visibility is for imported channels the bot cannot see (a live bot corrects the mark
when it sees the channel); unmarked channels count as public.
"""

from __future__ import annotations

import argparse
import sys

from bot.cli import CliError, open_cli_memory, plural
from bot.cli.bounds import whole
from bot.cli.channels import channel_labels, resolve_channel
from bot.cli.lookup import refused
from bot.cli.options import GUILD, Subparsers, command, option
from bot.cli.progress import working
from memory.core.channels import MEMORY_SOURCES
from memory.core.settings import Settings
from memory.ports import (
    FrontDoor,
    InvalidDigestTime,
    InvalidSetting,
    PrivacyError,
    describe_settings,
    parse_digest_time,
)

VISIBILITIES = ("restricted", "public")


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "settings",
        handle,
        GUILD,
        option("--timezone", help="IANA time zone of day boundaries, e.g. Europe/Berlin"),
        option(
            "--search-config",
            help="text search configuration of recall; re-indexes the guild's messages",
        ),
        option(
            "--memory-sources",
            choices=MEMORY_SOURCES,
            help="build notes, summaries and learned facts from public channels only (default) "
            "or from all channels",
        ),
        option("--channel", help="a channel id, with --visibility"),
        option(
            "--visibility",
            choices=VISIBILITIES,
            help="mark --channel: restricted (not everyone can read it) or public",
        ),
        option("--digest-channel", help="post the daily digest in this channel (id)"),
        option("--digest-time", help="when to post it, HH:MM in the guild's time zone"),
        option("--digest-off", action="store_true", help="stop the daily digest"),
        option(
            "--episode-silence",
            type=whole(10, 1440),
            help="minutes of silence that start a new episode (10-1440)",
        ),
        help="show or change a guild's memory settings",
        description="Show a guild's settings, or change its time zone, the text search "
        "configuration of recall (simple: any language; english, german, ...: stemmed), where "
        "shared memory comes from, or mark a channel restricted or public.",
    )


def _check_pairs(args: argparse.Namespace) -> None:
    if (args.channel is None) != (args.visibility is None):
        raise CliError("--channel and --visibility go together")
    if (args.digest_channel is None) != (args.digest_time is None):
        raise CliError("--digest-channel and --digest-time go together")


async def _episode_changes(
    args: argparse.Namespace, memory: FrontDoor, guild_id: int
) -> dict[str, object]:
    """--digest-channel with --digest-time (both or neither), --digest-off, --episode-silence."""
    changes: dict[str, object] = {}
    if args.digest_channel is not None:
        channel = await resolve_channel(memory, guild_id, args.digest_channel, "--digest-channel")
        try:
            changes["digest"] = (channel, parse_digest_time(args.digest_time))
        except InvalidDigestTime as exc:
            raise CliError(str(exc)) from None
    if args.digest_off:
        changes["digest_off"] = True
    if args.episode_silence is not None:
        changes["episode_silence_minutes"] = args.episode_silence
    return changes


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    _check_pairs(args)
    changes = {
        "timezone": args.timezone,
        "search_config": args.search_config,
        "memory_sources": args.memory_sources,
    }
    changed = {key: value for key, value in changes.items() if value is not None}
    marked = ""
    async with open_cli_memory(settings) as memory:
        with refused(PrivacyError, InvalidSetting):
            guild_id = await memory.privacy.guild(args.guild)
            channel_id = None
            if args.channel is not None:
                channel_id = await resolve_channel(memory, guild_id, args.channel, "--channel")
            changed.update(await _episode_changes(args, memory, guild_id))
            admin = memory.guild_settings
            current = await (
                admin.update(guild_id, **changed) if changed else admin.refresh(guild_id)
            )
            if channel_id is not None:
                public = args.visibility == "public"
                did = await memory.visibility.mark(guild_id, channel_id, public=public)
                label = (await channel_labels(memory, guild_id, [channel_id]))[channel_id]
                marked = f"Channel {label} marked {args.visibility}" + (
                    " (its days will be summarised again)\n" if did else " (unchanged)\n"
                )
                if did:  # now, not when a worker gets to it: learned facts come back at once
                    with working("summarising the days it changed", stream=sys.stderr):
                        rebuilt = await memory.manager.close_due_days(guild_id)
                    marked += f"Summarised again now: {plural(len(rebuilt), 'day')}\n"
            channels = await memory.visibility.channels(guild_id)
            shown = {*channels, *current.ignored_channel_ids}
            if current.digest_channel_id is not None:
                shown.add(current.digest_channel_id)
            labels = await channel_labels(memory, guild_id, shown)
    restricted = sorted(labels[cid] for cid, (public, _, _) in channels.items() if not public)
    print(
        marked
        + ("Settings updated\n" if changed else "")
        + describe_settings(current, labels.__getitem__)
        + "\nRestricted channels (not in shared memory): "
        + (", ".join(restricted) or "none")
    )
    return 0
