"""Channels in the admin's words: an id, `#name` or `name` in, `#name` out (issue 37.7)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.cli import CliError
from memory.ports import FrontDoor

_MENTION = re.compile(r"<#(\d+)>")


async def resolve_channel(memory: FrontDoor, guild_id: int, text: str, option: str) -> int:
    """The channel `text` names (an id, `<#id>`, `#name` or `name`), known to the guild;
    a CliError naming the option otherwise."""
    digits = text.strip().removeprefix("<#").removesuffix(">").lstrip("#")
    if digits.isdigit():
        channel_id = int(digits)
        if not await _known(memory, guild_id, channel_id):
            raise CliError(
                f"{option}: no channel {channel_id} is known in this guild (its messages or an"
                " import name it); give a channel's name or id"
            )
        return channel_id
    found = await memory.guild_settings.channels_named(guild_id, text)
    if len(found) == 1:
        return found[0]
    if not found:
        raise CliError(f"{option}: no channel named {text!r} (give its name or id)")
    raise CliError(f"{option}: several channels are named {text!r}: {', '.join(map(str, found))}")


async def _known(memory: FrontDoor, guild_id: int, channel_id: int) -> bool:
    """A channel the guild's messages, an import or a visibility mark has named."""
    if channel_id in await memory.guild_settings.channel_names(guild_id, [channel_id]):
        return True
    if channel_id in await memory.visibility.channels(guild_id):
        return True
    return channel_id in await memory.visibility.public_channels(guild_id)


async def channel_labels(memory: FrontDoor, guild_id: int, ids: Iterable[int]) -> dict[int, str]:
    """`#name` for each id (the id itself where no name is stored)."""
    wanted = set(ids)
    names = await memory.guild_settings.channel_names(guild_id, wanted)
    return {cid: f"#{names.get(cid, cid)}" for cid in wanted}


async def named_channels(memory: FrontDoor, guild_id: int, text: str) -> str:
    """Discord's `<#id>` mentions in `text` as `#name`: a terminal draws no mentions."""
    ids = {int(found) for found in _MENTION.findall(text)}
    if not ids:
        return text
    labels = await channel_labels(memory, guild_id, ids)
    return _MENTION.sub(lambda match: labels[int(match.group(1))], text)
