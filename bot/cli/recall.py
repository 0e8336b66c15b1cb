"""`memorybot recall --guild G [--user U] [--limit N] QUERY`: find something said again.

A natural question works ("when did sam go to that climbing gym?"): the best matches among the
guild's retained messages and day summaries are printed with their date, author and channel.
An admin tool: it searches every channel, restricted ones included, and says so on stderr
(members' /recall and replies search only what they can read).
"""

from __future__ import annotations

import argparse
import sys

from bot.cli import CliError, open_cli_memory
from memory import PrivacyError
from memory.core.settings import Settings
from memory.core.viewer import Viewer

ALL_CHANNELS = "(admin search: every channel, including channels most members cannot read)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "recall",
        help="search what was said in a guild (messages and day summaries)",
        description="Full-text search over a guild's retained messages and stored day "
        "summaries, best match first. A natural question works.",
    )
    parser.add_argument("--guild", required=True, help="guild id or exact name")
    parser.add_argument("--user", help="only what this member said or was mentioned in")
    parser.add_argument("--limit", type=int, default=10, help="how many hits (default 10)")
    parser.add_argument("query", nargs="+", help="what to look for")
    parser.set_defaults(handler=handle)


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    async with open_cli_memory(settings) as memory:
        try:
            guild_id = await memory.privacy.guild(args.guild)
            user_id = None
            if args.user:
                user_id = (await memory.privacy.subject(guild_id, args.user)).user_id
        except PrivacyError as exc:
            raise CliError(str(exc)) from None
        print(ALL_CHANNELS, file=sys.stderr)
        hits = await memory.recall.search(
            guild_id,
            " ".join(args.query),
            user_id=user_id,
            limit=args.limit,
            viewer=Viewer.everything(),
        )
        channels = await memory.guild_settings.channel_names(
            guild_id, [hit.channel_id for hit in hits if hit.channel_id]
        )
    if not hits:
        print("nothing found", file=sys.stderr)
        return 1
    for hit in hits:
        where = (
            f"#{channels.get(hit.channel_id, hit.channel_id)}" if hit.channel_id else "day summary"
        )
        when = hit.at.strftime("%Y-%m-%d %H:%M") if hit.at else hit.day
        print(f"{when}  {hit.author_name}  {where}  {hit.text}")
    return 0
