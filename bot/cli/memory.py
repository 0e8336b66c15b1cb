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

from bot.cli import CliError, guild_name, open_cli_memory
from bot.cli.bounds import decimal
from bot.cli.progress import llm_models, working
from memory.core.settings import Settings
from memory.ports import PrivacyError, format_report


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("memory", help="inspect the memory the bot holds")
    commands = parser.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    show = commands.add_parser(
        "show",
        help="print a member's assembled context with its sources and costs",
        description="Build (or serve from cache) a member's context and print it with its "
        "sources, sizes, cache hits and the LLM calls made.",
    )
    show.add_argument("--guild", required=True, help="guild id or exact name")
    show.add_argument("--user", required=True, help="member id, <@id> mention or name")
    show.add_argument("--now", help="ISO date or timestamp to build the memory as of")
    show.add_argument(
        "--budget",
        type=decimal(0, 3600),
        default=None,
        help="seconds to wait like a reply does (default: wait for the full build)",
    )
    show.add_argument(
        "--no-build",
        action="store_true",
        help="only what is stored (facts, stored summaries, the last merged context); "
        "builds nothing and never calls the LLM",
    )
    show.add_argument("--json", action="store_true", help="print the report as JSON")
    show.set_defaults(handler=handle_show)
    parser.set_defaults(handler=lambda args, settings: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


async def handle_show(args: argparse.Namespace, settings: Settings) -> int:
    async with open_cli_memory(settings, args.now) as memory:
        try:
            guild_id = await memory.privacy.guild(args.guild)
            subject = await memory.privacy.subject(guild_id, args.user)
        except PrivacyError as exc:
            raise CliError(str(exc)) from None
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
