"""Start-up banner and gateway heartbeat: the bot says what it runs with, once, and proves it
is alive to `memorybot health` by rewriting LOG_DIR/heartbeat every minute while connected.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.banner import guild_lines, memory_chain, startup_lines, version
from bot.heartbeat import INTERVAL_SECONDS, remove_heartbeat, write_heartbeat

if TYPE_CHECKING:
    from bot.client import MemoryBot

_log = logging.getLogger(__name__)


class Status(commands.Cog):
    """Banner on start and on first READY; heartbeat while the gateway is up."""

    def __init__(self, bot: MemoryBot) -> None:
        self.bot = bot
        self.memory = bot.memory
        self._announced = False

    async def cog_load(self) -> None:
        chain_for, model_for = memory_chain(self.memory)
        lines = startup_lines(
            self.memory.settings, version=version(), chain_for=chain_for, model_for=model_for
        )
        _log.info("%s", "\n".join(lines))
        self.beat.start()

    async def cog_unload(self) -> None:
        self.beat.cancel()
        remove_heartbeat(self.memory.settings.log_dir)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        self._beat_once()
        if self._announced:
            return  # READY again after a reconnect: the banner was said already
        self._announced = True
        token = self.memory.settings.discord_token
        lines = guild_lines(
            str(self.bot.user),
            [guild.name for guild in self.bot.guilds],
            token=token.get_secret_value() if token is not None else None,
            application_id=self.bot.application_id,
        )
        _log.info("%s", "\n".join(lines))

    @tasks.loop(seconds=INTERVAL_SECONDS)
    async def beat(self) -> None:
        self._beat_once()

    def _beat_once(self) -> None:
        bot = self.bot
        if bot.is_closed() or not bot.is_ready() or not math.isfinite(bot.latency):
            return
        try:
            write_heartbeat(
                self.memory.settings.log_dir,
                guilds=len(bot.guilds),
                latency_ms=round(bot.latency * 1000, 1),
            )
        except OSError as exc:
            _log.warning("cannot write the heartbeat file: %s", exc)


async def setup(bot: MemoryBot) -> None:
    await bot.add_cog(Status(bot))
