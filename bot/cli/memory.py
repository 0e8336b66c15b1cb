"""`memorybot memory show --guild G --user U [--now ISO]`: what the bot knows about a member.

Prints the assembled context with its sources (facts, today, days 2-7), their sizes, the cache
hits and the LLM calls the build made, so an admin can see why the bot says what it says.
`--now` (or MEMORYBOT_NOW) builds the memory as of a past moment, e.g. after an import.
"""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli import CliError
from bot.runtime import open_runtime
from memory.clock import clock_from_env
from memory.privacy import PrivacyError, resolve_guild, resolve_subject
from memory.report import ContextReport
from memory.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
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
        type=float,
        default=None,
        help="seconds to wait like a reply does (default: wait for the full build)",
    )
    show.add_argument("--json", action="store_true", help="print the report as JSON")
    show.set_defaults(handler=handle_show)
    parser.set_defaults(handler=lambda args, settings: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


async def handle_show(args: argparse.Namespace, settings: Settings) -> int:
    try:
        clock = clock_from_env(args.now)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    async with open_runtime(settings, clock=clock, telemetry_stdout=False) as runtime:
        try:
            guild_id = await resolve_guild(runtime.pool, args.guild)
            subject = await resolve_subject(runtime.pool, guild_id, args.user)
        except PrivacyError as exc:
            raise CliError(str(exc)) from None
        assert runtime.manager is not None
        report = await runtime.manager.build_context(guild_id, subject.user_id, budget=args.budget)
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(report))
    return 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) or "none"


def format_report(report: ContextReport) -> str:
    """The report for a terminal: the context first, then where it came from and what it cost."""
    lines = [
        f"Memory of {report.member_name} (id {report.user_id}) in guild {report.guild_id}, "
        f"as of {report.day} ({report.timezone})",
        "",
        report.text if report.text else "(nothing known about this member)",
        "",
        "Sources:",
    ]
    for source in report.sources:
        detail = f"  [{source.detail}]" if source.detail else ""
        lines.append(f"  {source.name:<8} {source.chars:>5} chars{detail}")
    lines.append(f"Context: {report.chars}/{report.max_chars} chars")
    budget = "none (full build)" if report.budget_seconds is None else f"{report.budget_seconds}s"
    lines.append(f"Budget: {budget}; took {report.elapsed_ms:.0f} ms")
    if report.fallback:
        lines.append(f"Fallback: {report.fallback} (reason: {report.fallback_reason})")
    lines.append(f"Cache hits: {_counts(report.cache_hits)}")
    lines.append(f"Cache misses: {_counts(report.cache_misses)}")
    lines.append(f"LLM calls: {report.total_llm_calls} ({_counts(report.llm_calls)})")
    if report.days_summarised:
        days = ", ".join(day.isoformat() for day in report.days_summarised)
        lines.append(f"Days summarised now: {days}")
    return "\n".join(lines) + "\n"
