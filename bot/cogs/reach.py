"""What the cogs that answer by what a member can read are built from, in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from discord.ext import commands

from bot.readers import ChannelReaders
from memory.ports import FrontDoor

if TYPE_CHECKING:
    from bot.client import MemoryBot


class Reach(NamedTuple):
    """The bot, its memory and the channel readers (who can read which channel): what the
    episodes, recall and visibility cogs each need, taken from the running bot once."""

    bot: commands.Bot | commands.AutoShardedBot
    memory: FrontDoor
    readers: ChannelReaders

    @classmethod
    def of(cls, bot: MemoryBot) -> Reach:
        return cls(bot, bot.memory, bot.readers)
