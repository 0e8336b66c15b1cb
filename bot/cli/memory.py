"""`memorybot memory show --guild G --user U [--now ISO]`: what the bot knows about a member.

Prints the assembled context with its sources (facts, today, days 2-7), their sizes, the cache
hits and the LLM calls the build made, so an admin can see why the bot says what it says.
`--now` (or MEMORYBOT_NOW) builds the memory as of a past moment, e.g. after an import.
Building may call the LLM (missing day summaries, the history roll-up, the merge); the command
says so on stderr before it starts, and `--no-build` shows only what is stored, with no call.
"""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli import guild_name, open_cli_memory
from bot.cli.bounds import decimal
from bot.cli.lookup import find_guild, find_member
from bot.cli.options import GUILD, USER, Subparsers, command, group, option
from bot.cli.progress import llm_models, working
from memory.core.settings import Settings
from memory.ports import format_report


def register(subparsers: Subparsers) -> None:
    command(
        group(subparsers, "memory", help="inspect the memory the bot holds"),
        "show",
        handle_show,
        GUILD,
        USER,
        option("--now", help="ISO date or timestamp to build the memory as of"),
        option(
            "--budget",
            type=decimal(0, 3600),
            default=None,
            help="seconds to wait like a reply does (default: wait for the full build)",
        ),
        option(
            "--no-build",
            action="store_true",
            help="only what is stored (facts, stored summaries, the last merged context); "
            "builds nothing and never calls the LLM",
        ),
        option("--json", action="store_true", help="print the report as JSON"),
        help="print a member's assembled context with its sources and costs",
        description="Build (or serve from cache) a member's context and print it with its "
        "sources, sizes, cache hits and the LLM calls made.",
    )


async def handle_show(args: argparse.Namespace, settings: Settings) -> int:
    async with open_cli_memory(settings, args.now) as memory:
        guild_id = await find_guild(memory, args.guild)
        subject = await find_member(memory, guild_id, args.user)
        if args.no_build:
            report = await memory.manager.stored_context(guild_id, subject.user_id)
        else:
            print(
                f"building the memory of {subject.label}: what is missing or stale is computed "
                f"now and may call the LLM ({llm_models(memory)}); --no-build shows only what "
                "is stored",
                file=sys.stderr,
            )
            with working(f"building the memory of {subject.label}"):
                if args.budget is None:
                    report = await memory.manager.wait_for_context(guild_id, subject.user_id)
                else:
                    report = await memory.manager.build_context(
                        guild_id, subject.user_id, budget=args.budget
                    )
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(report, guild_name(args.guild)))
    return 0
