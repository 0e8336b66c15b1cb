"""`memorybot summarize --guild G --date D`: summarise one guild-day now, even if stored.

Useful after changing the model or the prompt, or to look at what a day's batch produced.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from bot.cli import CliError, guild_name, open_cli_memory, plural
from bot.cli.lookup import find_guild, refused
from bot.cli.options import GUILD, Subparsers, command, option
from bot.cli.progress import llm_models, working
from memory.core.settings import Settings
from memory.ports import DayOutOfRange, DayResult


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "summarize",
        handle,
        GUILD,
        option("--date", required=True, help="the day, YYYY-MM-DD, in the guild's zone"),
        option(
            "--if-changed",
            action="store_true",
            help="only when the day's messages changed since it was stored",
        ),
        help="(re)summarise one guild-day",
        description="Summarise every active member's day in one batch and store it, replacing "
        "the stored summary of that day.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    try:
        day = date.fromisoformat(args.date.strip())
    except ValueError:
        raise CliError(f"--date: not a YYYY-MM-DD date: {args.date!r}") from None
    async with open_cli_memory(settings) as memory:
        guild_id = await find_guild(memory, args.guild)
        with refused(DayOutOfRange):
            await memory.manager.check_day(guild_id, day)
        print(
            f"summarising guild {args.guild}, {day}: one batched LLM call for the day "
            f"(more when it is too long for one) with {llm_models(memory, ('daily_summary',))}",
            file=sys.stderr,
        )
        with working(f"summarising {day} (calling the LLM)"):
            result = await memory.manager.summarize_day(guild_id, day, force=not args.if_changed)
        names = await memory.members.display_names(guild_id, list(result.summaries))
    sys.stdout.write(format_result(result, names, guild_name(args.guild)))
    return 0


def format_result(result: DayResult, names: dict[int, str], guild: str | None = None) -> str:
    """`guild`: the name the admin typed, shown instead of the bare id."""
    where = f"Guild {guild} (id {result.guild_id})" if guild else f"Guild {result.guild_id}"
    messages = plural(result.message_count, "message")
    if result.reason == "expired":
        state = (
            f"kept the stored summary: retention removed the day's messages "
            f"({result.message_count} of {result.stored_messages} left), so there is nothing "
            "to summarise it again from; nothing changed"
        )
        lines = [f"{where}, {result.day}: {state}"]
    elif result.computed:
        state = (
            f"summarised ({result.reason}): {plural(result.chunks, 'chunk')}, "
            f"{plural(result.llm_calls, 'LLM call')}"
        )
        lines = [f"{where}, {result.day}: {messages}, {state}"]
    else:
        lines = [f"{where}, {result.day}: {messages}, already up to date; nothing recomputed"]
    for user_id, text in sorted(result.summaries.items(), key=lambda item: names.get(item[0], "")):
        name = names.get(user_id, f"user {user_id}")
        lines.append(f"- {name} (id {user_id}): {text or '(nothing to say)'}")
    if not result.summaries:
        lines.append("(no member to summarise)")
    return "\n".join(lines) + "\n"
