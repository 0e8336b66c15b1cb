"""The guild and the member a command names, found in memory or refused in one line.

Memory refuses what it cannot find (an unknown guild, a name several members share, a day out
of range) with an exception whose text is already the sentence to show; a command says it as a
`CliError`, the one line `memorybot:` prints.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bot.cli import CliError
from memory.ports import FrontDoor, PrivacyError, Subject


@contextlib.contextmanager
def refused(*errors: type[Exception]) -> Iterator[None]:
    """`errors` raised inside become a `CliError` with the same text."""
    try:
        yield
    except errors as exc:
        raise CliError(str(exc)) from None


async def find_guild(memory: FrontDoor, typed: str) -> int:
    """The id of the guild typed as `--guild` (an id or its exact name)."""
    try:
        return await memory.privacy.guild(typed)
    except PrivacyError as exc:
        raise CliError(str(exc)) from None


async def find_member(memory: FrontDoor, guild_id: int, typed: str) -> Subject:
    """The member typed as `--user` (an id, a mention or a name) in the guild."""
    try:
        return await memory.privacy.subject(guild_id, typed)
    except PrivacyError as exc:
        raise CliError(str(exc)) from None
