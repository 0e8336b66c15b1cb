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
from bot.cli.bounds import whole
from bot.cli.lookup import find_guild, find_member
from bot.cli.options import GUILD, Subparsers, command, option
from memory.core.settings import Settings
from memory.core.viewer import Viewer
from memory.ports import RecallHit

ALL_CHANNELS = "(admin search: every channel, including channels most members cannot read)"


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "recall",
        handle,
        GUILD,
        option("--user", help="only what this member said or was mentioned in"),
        option(
            "--limit", type=whole(1, 1000), default=10, help="how many hits, 1-1000 (default 10)"
        ),
        option("query", nargs="+", help="what to look for"),
        help="search what was said in a guild (messages and day summaries)",
        description="Full-text search over a guild's retained messages and stored day "
        "summaries, best match first. A natural question works.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    async with open_cli_memory(settings) as memory:
        guild_id = await find_guild(memory, args.guild)
        user_id = None
        if args.user:
            user_id = (await find_member(memory, guild_id, args.user)).user_id
        print(ALL_CHANNELS, file=sys.stderr)
        question = " ".join(args.query)
        note = memory.recall.capped(question)
        if note:
            print(note, file=sys.stderr)
        hits = await memory.recall.search(
            guild_id, question, user_id=user_id, limit=args.limit, viewer=Viewer.everything()
        )
    if not hits:
        print("nothing found", file=sys.stderr)
        return 1
    for number, hit in enumerate(hits, 1):
        for line in (*_before(hit), hit, *_after(hit)):
            label = (
                f"{number}."
                if line is hit
                else ("  before" if line.side == "before" else "  after")
            )
            print(f"{label:<9}{_line(line, guild_id)}")
    return 0


def _before(hit: RecallHit) -> list[RecallHit]:
    return [line for line in hit.context if line.side == "before"]


def _after(hit: RecallHit) -> list[RecallHit]:
    return [line for line in hit.context if line.side != "before"]


def _line(hit: RecallHit, guild_id: int) -> str:
    """`Thu 2023-07-06 14:05  melanie  #general  text  link` (a day summary with its day only);
    the caller labels it: the hit's number, or `before` / `after` for the lines around it."""
    if hit.kind != "message":
        return f"{hit.day_label}  {hit.author_name}  day summary  {hit.text}"
    where = f"#{hit.channel_name or hit.channel_id}"
    when = f"{hit.day_label} {hit.at:%H:%M}" if hit.at else hit.day_label
    text = " ".join(hit.text.split())
    dates = f"  [{'; '.join(hit.dates)}]" if hit.dates else ""
    link = hit.jump_url(guild_id)
    return f"{when}  {hit.author_name}  {where}  {text}{dates}  {link}"
