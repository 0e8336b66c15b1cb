"""`memorybot user export|purge --guild G --user U`: a member's data out, or gone.

`--user` takes an id, a `<@id>` mention or any name or alias the member is known by; a name
shared by several members is refused with the candidates listed. `--guild` takes an id or the
guild's exact name.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from bot.cli import CliError, guild_label, name_guild, open_cli_memory, plural
from bot.cli.lookup import find_guild
from bot.cli.options import GUILD, USER, YES, Subparsers, command, group, option
from memory.core.settings import Settings
from memory.ports import (
    FrontDoor,
    PrivacyError,
    PurgeReport,
    Subject,
    export_summary,
    to_json,
)

Confirm = Callable[[str], bool]


def register(subparsers: Subparsers) -> None:
    commands = group(subparsers, "user", help="export or purge what is held about a member")
    command(
        commands,
        "export",
        handle_export,
        GUILD,
        USER,
        option("--out", type=Path, help="write to this file (default: stdout)"),
        help="write everything held about a member as JSON",
        description="Write the member row, messages, facts, fact history, forgotten "
        "statements, summaries and merged context of one member as JSON.",
    )
    command(
        commands,
        "purge",
        handle_purge,
        GUILD,
        USER,
        YES,
        help="delete everything held about a member",
        description="Delete the member's messages, facts, history, forgotten statements, "
        "summaries and merged context; days shared with others are marked for re-summarising.",
    )
    _register_consent(commands)


def _register_consent(commands: Subparsers) -> None:
    """The member's choice recorded by an admin: opting out, in, and purging who never opted
    in."""
    command(
        commands,
        "optout",
        handle_optout,
        GUILD,
        USER,
        YES,
        help="stop storing a member and delete what is held (their objection)",
        description="Record that the member does not want to be remembered, delete everything "
        "held about them as `user purge` does, and store nothing of theirs from now on (live "
        "chat, backfill, imports). An id the bot has never seen works too.",
    )
    # Opting in deletes nothing, so there is nothing to confirm; --yes is accepted all the same
    # (scripts pass it to every user subcommand).
    command(
        commands,
        "optin",
        handle_optin,
        GUILD,
        USER,
        option("--yes", action="store_true", help="accepted; opting in asks nothing"),
        help="store a member again from now on (nothing earlier comes back)",
        description="Record that the member agrees to be remembered: needed in guilds that "
        "store only members who opted in, and lifts an earlier opt-out.",
    )
    command(
        commands,
        "purge-unconsented",
        handle_purge_unconsented,
        GUILD,
        YES,
        option(
            "--force",
            action="store_true",
            help="purge even though the guild stores everyone (storage is not opted-in)",
        ),
        help="purge every member of a guild who never opted in",
        description="For a guild that stores only members who opted in: delete what is held "
        "about everyone else, as `user purge` does for each, after naming them. Refused in a "
        "guild that stores everyone unless --force is given.",
    )


async def _subject(memory: FrontDoor, args: argparse.Namespace) -> Subject:
    guild_id: int | None
    try:
        guild_id = await memory.privacy.guild(args.guild)
    except PrivacyError as exc:
        # A guild known only by an objection recorded before any import (`user optout`).
        guild_id = parse_id(args.guild)
        if guild_id is None:
            raise CliError(str(exc)) from None
        try:
            return await memory.privacy.subject(guild_id, args.user)
        except PrivacyError:
            raise CliError(str(exc)) from None
    try:
        return await memory.privacy.subject(guild_id, args.user)
    except PrivacyError as exc:
        raise CliError(name_guild(str(exc), guild_id, args.guild)) from None


def _where(args: argparse.Namespace, subject: Subject) -> str:
    """`guild Sample Hikers` when the admin typed its name, else `guild <id>`."""
    return f"guild {guild_label(args.guild, subject.guild_id)}"


async def handle_export(args: argparse.Namespace, settings: Settings) -> int:
    # Telemetry stays off stdout: the export itself may be going there.
    async with open_cli_memory(settings) as memory:
        subject = await _subject(memory, args)
        export = await memory.privacy.export(subject)
    text = to_json(export)
    if args.out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"exported {subject.label} of {_where(args, subject)} to {args.out}", file=sys.stderr)
    return 0


def ask(prompt: str) -> bool:
    """Ask on the terminal; only a typed "yes" confirms (EOF or anything else declines)."""
    print(prompt, end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() == "yes"


async def handle_purge(
    args: argparse.Namespace, settings: Settings, *, confirm: Confirm = ask
) -> int:
    async with open_cli_memory(settings) as memory:
        subject = await _subject(memory, args)
        if not args.yes:
            preview = await memory.privacy.preview(subject)
            prompt = (
                f"This deletes everything held about {subject.label} in "
                f"{_where(args, subject)}:\n{export_summary(preview)}\n"
                "It cannot be undone. Type 'yes' to purge: "
            )
            if not confirm(prompt):
                print("purge cancelled; nothing was deleted", file=sys.stderr)
                return 1
        report = await memory.privacy.purge(subject)
    print(name_guild(report.describe(), subject.guild_id, args.guild))
    _resummarized(report)
    return 0


def _resummarized(report: PurgeReport) -> None:
    if report.resummarized:
        days = ", ".join(day.isoformat() for day in report.resummarized)
        print(f"re-summarised without them: {days}")


async def _anyone(memory: FrontDoor, args: argparse.Namespace) -> Subject:
    """The member, also by a bare id neither the guild nor the member was seen with yet."""
    guild_id: int | None = None
    try:
        try:
            guild_id = await memory.privacy.guild(args.guild)
        except PrivacyError:
            guild_id = parse_id(args.guild)
            if guild_id is None:
                raise
        return await memory.privacy.subject_or_id(guild_id, args.user, typed=True)
    except PrivacyError as exc:
        message = str(exc) if guild_id is None else name_guild(str(exc), guild_id, args.guild)
        raise CliError(message) from None


async def handle_optout(
    args: argparse.Namespace, settings: Settings, *, confirm: Confirm = ask
) -> int:
    # An objection can come before the first import: the database is created to record it.
    async with open_cli_memory(settings, create=True) as memory:
        subject = await _anyone(memory, args)
        if not args.yes:
            prompt = (
                f"{subject.label} in {_where(args, subject)} will not be remembered: everything"
                " held about them is deleted now and nothing of theirs is stored from now on."
                " Type 'yes' to continue: "
            )
            if not confirm(prompt):
                print("opt-out cancelled; nothing was changed", file=sys.stderr)
                return 1
        report = await memory.privacy.opt_out(subject, actor_id=None, by_admin=True, wait=True)
    described = name_guild(report.describe(), subject.guild_id, args.guild)
    print(f"opted out {subject.label} of {_where(args, subject)}; {described}")
    _resummarized(report)
    return 0


async def handle_optin(args: argparse.Namespace, settings: Settings) -> int:
    async with open_cli_memory(settings) as memory:
        subject = await _anyone(memory, args)
        await memory.privacy.opt_in(subject.guild_id, subject.user_id, actor_id=None, by_admin=True)
    label = subject.label
    if subject.member is None and parse_id(args.user) is None:  # found by a name they had
        label = f"{args.user.strip()} (id {subject.user_id})"
    print(f"opted in {label} of {_where(args, subject)}: stored from now on")
    return 0


def parse_id(text: str) -> int | None:
    stripped = text.strip()
    return int(stripped) if stripped.isdigit() else None


async def handle_purge_unconsented(
    args: argparse.Namespace, settings: Settings, *, confirm: Confirm = ask
) -> int:
    where = guild_label(args.guild)
    async with open_cli_memory(settings) as memory:
        guild_id = await find_guild(memory, args.guild)
        storage = (await memory.guild_settings.refresh(guild_id)).storage
        where = guild_label(args.guild, guild_id)
        if storage != "opted-in" and not args.force:
            raise CliError(
                f"guild {where} stores everyone (storage: {storage}), not only members who"
                " opted in, so nobody there was expected to opt in; switch it first with"
                " `/memory settings storage: opted-in` in Discord, or pass --force to purge"
                " every member who never opted in anyway"
            )
        members = await memory.privacy.unconsented(guild_id)
        if not members:
            print(f"nobody in guild {where} is held without having opted in")
            return 0
        names = await memory.members.display_names(guild_id, members)
        held = plural(len(members), "member")
        listing = "\n".join(f"  {names.get(user_id, 'user')} (id {user_id})" for user_id in members)
        prompt = (
            f"{held} of guild {where} {'is' if len(members) == 1 else 'are'} held without"
            f" having opted in:\n{listing}\n"
            "Everything held about them will be deleted. Type 'yes' to purge them: "
        )
        if args.yes:
            print(f"purging {held} of guild {where}:\n{listing}", file=sys.stderr)
        elif not confirm(prompt):
            print("purge cancelled; nothing was deleted", file=sys.stderr)
            return 1
        purged = await memory.privacy.purge_unconsented(guild_id, actor_id=None, only=members)
    print(f"purged {plural(purged, 'member')} of guild {where} who never opted in")
    return 0
