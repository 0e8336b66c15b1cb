"""`memorybot user export|purge --guild G --user U`: a member's data out, or gone.

`--user` takes an id, a `<@id>` mention or any name or alias the member is known by; a name
shared by several members is refused with the candidates listed. `--guild` takes an id or the
guild's exact name.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

from bot.cli import CliError
from bot.runtime import Runtime, open_runtime
from memory.privacy import (
    PrivacyError,
    Resummarize,
    Subject,
    export_member,
    export_summary,
    purge_member,
    purge_preview,
    resolve_guild,
    resolve_subject,
    to_json,
)
from memory.settings import Settings

Confirm = Callable[[str], bool]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("user", help="export or purge what is held about a member")
    commands = parser.add_subparsers(dest="user_command", metavar="SUBCOMMAND")

    export = commands.add_parser(
        "export",
        help="write everything held about a member as JSON",
        description="Write the member row, messages, facts, fact history, forgotten "
        "statements, summaries and merged context of one member as JSON.",
    )
    _common(export)
    export.add_argument("--out", type=Path, help="write to this file (default: stdout)")
    export.set_defaults(handler=handle_export)

    purge = commands.add_parser(
        "purge",
        help="delete everything held about a member",
        description="Delete the member's messages, facts, history, forgotten statements, "
        "summaries and merged context; days shared with others are marked for re-summarising.",
    )
    _common(purge)
    purge.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    purge.set_defaults(handler=handle_purge)
    parser.set_defaults(handler=lambda args, settings: _usage(parser))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--guild", required=True, help="guild id or exact name")
    parser.add_argument("--user", required=True, help="member id, <@id> mention or name")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


async def _subject(runtime: Runtime, args: argparse.Namespace) -> Subject:
    try:
        guild_id = await resolve_guild(runtime.pool, args.guild)
        return await resolve_subject(runtime.pool, guild_id, args.user)
    except PrivacyError as exc:
        raise CliError(str(exc)) from None


async def handle_export(args: argparse.Namespace, settings: Settings) -> int:
    # Telemetry stays off stdout: the export itself may be going there.
    async with open_runtime(settings, telemetry_stdout=False) as runtime:
        subject = await _subject(runtime, args)
        export = await export_member(runtime.pool, subject, telemetry=runtime.telemetry)
    text = to_json(export)
    if args.out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(
            f"exported {subject.label} of guild {subject.guild_id} to {args.out}", file=sys.stderr
        )
    return 0


def ask(prompt: str) -> bool:
    """Ask on the terminal; only a typed "yes" confirms (EOF or anything else declines)."""
    print(prompt, end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() == "yes"


async def handle_purge(
    args: argparse.Namespace, settings: Settings, *, confirm: Confirm = ask
) -> int:
    async with open_runtime(settings, telemetry_stdout=False) as runtime:
        subject = await _subject(runtime, args)
        if not args.yes:
            preview = await purge_preview(runtime.pool, subject)
            prompt = (
                f"This deletes everything held about {subject.label} in guild "
                f"{subject.guild_id}:\n{export_summary(preview)}\n"
                "It cannot be undone. Type 'yes' to purge: "
            )
            if not confirm(prompt):
                print("purge cancelled; nothing was deleted", file=sys.stderr)
                return 1
        report = await purge_member(
            runtime.pool,
            subject,
            default_timezone=settings.default_timezone,
            telemetry=runtime.telemetry,
            resummarize=_resummarizer(runtime),
        )
    print(report.describe())
    if report.resummarized:
        days = ", ".join(day.isoformat() for day in report.resummarized)
        print(f"re-summarised without them: {days}")
    return 0


def _resummarizer(runtime: Runtime) -> Resummarize | None:
    """Re-summarise shared days right away when the runtime has a memory manager."""
    manager = getattr(runtime, "manager", None)
    if manager is None:
        return None

    async def resummarize(guild_id: int, day: date) -> None:
        await manager.summarize_day(guild_id, day, force=False)

    return resummarize
