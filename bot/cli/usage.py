"""`memorybot usage [--guild G] [--days N]`: LLM calls, failed attempts, tokens and an estimated
cost per day.

Counts come from the `llm_usage` table every process writes as its calls complete (telemetry
files rotate away; the table keeps every day); prices from LLM_PRICES over the Gemini defaults.
"""

from __future__ import annotations

import argparse

from bot.cli import open_cli_memory
from bot.cli.bounds import whole
from bot.cli.lookup import find_guild
from bot.cli.options import Subparsers, command, option
from memory.core.settings import Settings


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "usage",
        handle,
        option("--guild", default=None, help="one guild (id or exact name); all by default"),
        option(
            "--days",
            type=whole(1, 3650),
            default=7,
            help="how many days back, today included (1-3650)",
        ),
        help="LLM calls, failed attempts, tokens and estimated cost per day, purpose and model",
        description="Calls, failed attempts and input/output tokens of the LLM per UTC day, "
        "purpose and model, with an estimated cost from per-model prices (LLM_PRICES over the "
        "Gemini defaults); then the attempts that got no answer by error class. Tokens marked ~ "
        "are the offline provider's, estimated by us.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    async with open_cli_memory(settings) as memory:
        guild_id, label = None, ""
        if args.guild is not None:
            guild_id = await find_guild(memory, args.guild)
            named = await memory.privacy.guild_names([guild_id])
            label = f"{named[guild_id]} (guild {guild_id})" if guild_id in named else ""
        print(await memory.operations.usage_text(guild_id=guild_id, days=args.days, label=label))
    return 0
