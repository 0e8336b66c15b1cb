"""`memorybot settings --guild G [--timezone TZ] [--search-config NAME]`: a guild's settings.

The same settings as `/memory settings`, for an admin at the console: shown, or changed and
shown. A new search configuration re-indexes the guild's stored messages and summaries, which
for a large imported server is better waited for here than inside a slash command.
"""

from __future__ import annotations

import argparse

from bot.cli import CliError, open_cli_memory
from memory import InvalidSetting, PrivacyError, describe_settings
from memory.core.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "settings",
        help="show or change a guild's memory settings",
        description="Show a guild's settings, or change its time zone or the text search "
        "configuration of recall (simple: any language; english, german, ...: stemmed).",
    )
    parser.add_argument("--guild", required=True, help="guild id or exact name")
    parser.add_argument("--timezone", help="IANA time zone of day boundaries, e.g. Europe/Berlin")
    parser.add_argument(
        "--search-config",
        help="text search configuration of recall; re-indexes the guild's messages",
    )
    parser.set_defaults(handler=handle)


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    changes = {"timezone": args.timezone, "search_config": args.search_config}
    changed = {key: value for key, value in changes.items() if value is not None}
    async with open_cli_memory(settings) as memory:
        try:
            guild_id = await memory.privacy.guild(args.guild)
            guilds = memory.guild_settings
            current = await (
                guilds.update(guild_id, **changed) if changed else guilds.refresh(guild_id)
            )
        except (PrivacyError, InvalidSetting) as exc:
            raise CliError(str(exc)) from None
    print(("Settings updated\n" if changed else "") + describe_settings(current))
    return 0
