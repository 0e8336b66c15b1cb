"""The Discord client: a `commands.Bot` that receives its services instead of building them.

`run_bot(settings)` is the production entry point (`memorybot run`): it opens memory through
the front door (database, writer, services, background jobs), connects to Discord, and on
Ctrl-C/SIGTERM closes the gateway first and then lets memory flush pending writes before the
pool closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import importlib.util
import json
import logging
import signal
from collections.abc import Callable
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot.guild_arrivals import GuildArrivals
from bot.rate_buckets import AmortisedBucketClearing
from bot.readers import ChannelReaders
from memory.core import event_loop
from memory.core.clock import SystemClock
from memory.core.settings import Settings
from memory.ports import DatabaseUnavailable, FrontDoor, ShardTaken
from memory.wiring import open_memory

_log = logging.getLogger(__name__)

# The bot has no voice features; without these discord.py warns at start that PyNaCl and
# davey (voice encryption) are missing, which an admin reads as something to fix.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False

# Cogs in load order; modules not written yet are skipped (see `MemoryBot.setup_hook`).
EXTENSIONS = [
    "bot.cogs.errors",
    "bot.cogs.status",
    "bot.cogs.ingest",
    "bot.cogs.facts",
    "bot.cogs.memory_group",
    "bot.cogs.replies",
    "bot.cogs.recall",
    "bot.cogs.help",
    "bot.cogs.visibility",
    "bot.cogs.episodes",
]


def bot_intents() -> discord.Intents:
    """Guilds, members (directory), messages and their content (ingestion)."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.members = True
    intents.messages = True  # guild and DM message events
    intents.message_content = True
    return intents


class MemoryBot(commands.AutoShardedBot):
    """memorybot on Discord. Features live in cogs; shared services come from `memory`.

    Always the sharded client: with SHARD_COUNT=1 (the default) it owns the one shard; with
    SHARD_COUNT/SHARD_IDS several processes on one database split the guilds between them,
    and each only ever sees (so builds and caches memory for) the guilds of its shards.
    """

    def __init__(
        self,
        memory: FrontDoor,
        *,
        extensions: list[str] | None = None,
        sync_commands: bool = True,
        **options: Any,
    ) -> None:
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        plan = memory.settings.shards
        options.setdefault("shard_count", plan.count)
        if plan.ids is not None:
            options.setdefault("shard_ids", list(plan.ids))
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=bot_intents(),
            help_command=None,
            **options,
        )
        self.memory = memory
        AmortisedBucketClearing.install(self.http)
        self._frozen = False  # start-up's objects handed to gc.freeze() (first READY)
        # Which channels each member can read (the viewer of /recall and replies).
        self.readers = ChannelReaders()
        # Guilds discord.py made available without an event, announced when their shard is ready.
        self.arrivals = GuildArrivals(self)
        self.extension_names = list(EXTENSIONS if extensions is None else extensions)
        self.sync_commands = sync_commands

    async def setup_hook(self) -> None:
        for name in self.extension_names:
            if importlib.util.find_spec(name) is None:
                _log.info("extension %s not present; skipped", name)
                continue
            await self.load_extension(name)
            _log.info("loaded extension %s", name)
        if self.sync_commands and self.tree.get_commands():
            await self._sync_commands()

    async def _sync_commands(self) -> None:
        """Sync the slash commands only when the tree changed since the last sync (Discord
        rate-limits syncs); with DEV_GUILD_ID, also to that guild, every start, at once."""
        tree_hash = command_tree_hash(self.tree)
        scopes: list[discord.Object | None] = [None]
        dev_guild = self.memory.settings.dev_guild_id
        if dev_guild is not None:
            self.tree.copy_global_to(guild=discord.Object(dev_guild))
            scopes.append(discord.Object(dev_guild))
        for guild in scopes:
            scope = "global" if guild is None else str(guild.id)
            syncs = self.memory.operations.command_syncs
            if guild is None and not await syncs.needed(scope, tree_hash):
                _log.info("slash commands unchanged since the last sync; not syncing")
                continue
            try:
                synced = await self.tree.sync(guild=guild)
            except discord.HTTPException as exc:
                _log.warning("could not sync slash commands (%s): %s", scope, exc)
                continue
            await syncs.synced(scope, tree_hash)
            _log.info("synced %d slash commands (%s)", len(synced), scope)

    async def on_ready(self) -> None:
        _log.info(
            "connected as %s to %d guilds (shards %s)",
            self.user,
            len(self.guilds),
            self.memory.settings.shards.describe(),
        )
        if not self._frozen:
            # What start-up loaded (modules, the guilds' members and channels) lives as long
            # as the process: out of the collector's sight, a full collection no longer walks
            # it, which stalled a reply for ~50 ms in the reply bench. Once: what a reconnect
            # builds may become garbage again.
            self._frozen = True
            gc.collect()  # garbage first: frozen objects are never collected
            gc.freeze()

    async def on_command_error(
        self, context: commands.Context[Any], exception: commands.CommandError
    ) -> None:
        # The prefix is a mention, so every "@Bot hello" looks like an unknown command;
        # conversation is the replies cog's business, not an error.
        if isinstance(exception, commands.CommandNotFound):
            return
        await super().on_command_error(context, exception)

    async def close(self) -> None:
        """Leave the gateway, then push out whatever the writer still holds."""
        # discord.py leaves a READY still waiting for member chunks pending at close; it would
        # later dispatch on_ready into a closed client (a "never awaited" coroutine).
        pending_ready = getattr(self._connection, "_ready_task", None)
        if pending_ready is not None:
            pending_ready.cancel()
        await super().close()
        try:
            await asyncio.wait_for(self.memory.writer.flush(), 30)
        except Exception as exc:
            _log.warning("pending writes not flushed at bot close: %s", exc)


class ShutdownSignals:
    """SIGTERM/SIGINT ask for one graceful stop: leave the gateway, drain the writer, close the
    pool, stop the embedded PostgreSQL. Repeats while that runs are logged and ignored, so a
    second `docker stop` or Ctrl-C cannot cut the drain short.

    Installed with `signal.signal` (not the loop's handlers, which restore the default action
    when removed): a signal that arrives after the loop closed still finds a handler.
    """

    def __init__(self) -> None:
        self.received = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._previous: dict[signal.Signals, Any] = {}

    def install(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous[signum] = signal.signal(signum, self._on_signal)
            except ValueError:  # not the main thread: whoever embeds us handles signals
                _log.debug("not installing a %s handler outside the main thread", signum.name)

    def restore(self) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def ignore_from_now_on(self) -> None:
        """Shutdown is complete: later signals are moot. SIG_IGN, unlike a Python handler, is
        not reset to the default action while the interpreter finalizes, so a last signal
        cannot turn a clean exit into -15."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(ValueError):
                signal.signal(signum, signal.SIG_IGN)
        self._previous.clear()

    def attach(self) -> asyncio.Event:
        """The event a stop request sets, on the running loop (set at once if one came)."""
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        if self.received:
            self._event.set()
        return self._event

    def _on_signal(self, signum: int, frame: object) -> None:
        self.received += 1
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing left to do
                loop.call_soon_threadsafe(self._requested, signum)

    def _requested(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self._event is not None and self._event.is_set():
            _log.warning("%s again: shutdown already under way, waiting for it to finish", name)
            return
        _log.info("%s: shutting down (pending writes are flushed first)", name)
        if self._event is not None:
            self._event.set()


def command_tree_hash(tree: app_commands.CommandTree) -> str:
    """A stable digest of the global command tree as Discord would receive it."""
    payload = [command.to_dict(tree) for command in tree.get_commands()]
    text = json.dumps(sorted(payload, key=lambda item: item["name"]), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def run_bot(settings: Settings) -> int:
    """Run the bot until it is stopped; the process exit code."""
    if settings.discord_token is None:
        raise ValueError("run_bot needs DISCORD_TOKEN")
    signals = ShutdownSignals()
    signals.install()  # stays for the life of the process: a late signal is no crash
    try:
        return event_loop.run(serve(settings, signals=signals))
    except KeyboardInterrupt:
        return 130
    except ShardTaken as exc:  # another live process runs these shards: never answer twice
        _log.error("%s", exc)
        return 1
    except DatabaseUnavailable as exc:
        # Before the generic OSError below: a database refusing connections is not Discord.
        _log.error("%s", exc)
        return 1
    except discord.LoginFailure:
        _log.error("Discord rejected DISCORD_TOKEN (check the token in .env)")
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        _log.error("cannot reach Discord: %s (check the network, proxy or firewall)", exc)
        return 1
    except discord.PrivilegedIntentsRequired:
        _log.error(
            "enable the Server Members and Message Content intents for the bot in the"
            " Discord developer portal"
        )
        return 1
    finally:
        signals.ignore_from_now_on()


async def serve(
    settings: Settings,
    *,
    on_start: Callable[[MemoryBot], None] | None = None,
    signals: ShutdownSignals | None = None,
) -> int:
    """Open memory and run the bot until closed or signalled; `on_start` sees the bot before
    it connects (embedding, tests). Without `signals`, installs its own for the call."""
    if settings.discord_token is None:
        raise ValueError("serve needs DISCORD_TOKEN")
    token = settings.discord_token.get_secret_value()
    own = signals is None
    signals = signals or ShutdownSignals()
    if own:
        signals.install()
    stop = signals.attach()  # a signal during start-up still stops us cleanly
    point_at_discord(settings)
    try:
        memory_opened = open_memory(settings, clock=SystemClock(), background=True)
        async with (
            memory_opened as memory,
            memory.operations.claim_shards(on_lost=stop.set),  # another process runs them: stop
            MemoryBot(memory) as bot,
        ):
            memory.telemetry.bind(shards=settings.shards.describe())
            if on_start is not None:
                on_start(bot)
            if not stop.is_set():
                await _run_until_stopped(bot, token, stop)
    finally:
        if own:
            signals.restore()
    _log.info("bot stopped")
    return 0


def point_at_discord(settings: Settings) -> None:
    """DISCORD_API_URL / DISCORD_GATEWAY_URL: talk to a proxy (or a test double) instead of
    Discord itself, through discord.py's own base-URL hooks."""
    if settings.discord_api_url:
        discord.http.Route.BASE = settings.discord_api_url.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


async def _run_until_stopped(bot: MemoryBot, token: str, stop: asyncio.Event) -> None:
    """Run the gateway until it ends or a stop is asked for; then close the bot (which
    flushes the writer). Memory itself closes after this, in `serve`."""
    running = asyncio.create_task(bot.start(token), name="discord-gateway")
    stopping = asyncio.create_task(stop.wait(), name="shutdown-request")
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if running.done():
        running.result()  # a login failure or lost gateway raises here
        return
    await bot.close()
    try:
        await asyncio.wait_for(running, 30)
    except Exception as exc:  # the gateway task failing while we leave is no reason to stop
        _log.warning("gateway task ended with %s during shutdown", type(exc).__name__)
