"""MemoryManager: the one door to a member's memory (facts + today + days 2-7, merged).

    get_memories(guild, user)  -> str | None     the reply path, within a time budget
    build_context(guild, user) -> ContextReport  the same, with sources, sizes and costs
    invalidate(guild, user)                      after remember/forget/purge
    summarize_day(guild, day)                    force one guild-day (CLI)

Every level is cached so a repeated request costs no LLM call, and persisted so a restart costs
none either: completed days in `summary_days`, history in `historical_summaries`, the final
context in `merged_contexts` keyed by the content hash of its inputs. When the build fails or
runs past the budget the member still gets something (see `_fallback`), and the build keeps
running in the background to fill the caches for the next request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import date, datetime, timedelta

import asyncpg

from db.summaries import day_states
from memory.context._build import Built, ContextBuilder
from memory.context._config import ContextConfig
from memory.context._days import check_asked_day, stored_days
from memory.context._fallback import Fallbacks
from memory.context._merge import ContextMerger, fallback_context
from memory.context._reports import fallback_report, report_of, served_context
from memory.context._warm import ServedContext, WarmContexts
from memory.context._zones import GuildZones
from memory.core.cache import SingleFlight
from memory.core.clock import Clock, day_bounds, local_day
from memory.core.events import EventBus
from memory.core.report import ContextReport
from memory.core.telemetry import Telemetry
from memory.llm import LLMError, MemoryLLM
from memory.members import MemberReads
from memory.summaries import (
    BuildStats,
    DailySummarizer,
    DayResult,
    HistoricalSummarizer,
)

_log = logging.getLogger(__name__)


class MemoryManager:
    """Builds, caches and serves member contexts; owns every background task it starts."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        llm: MemoryLLM,
        config: ContextConfig,
        *,
        clock: Clock,
        telemetry: Telemetry,
        reads: MemberReads | None = None,
        events: EventBus | None = None,
    ) -> None:
        """`reads`: how members are read (the rows the reply path holds); straight from the
        database when not given. `events`: where reading chat tells a learned fact."""
        self._pool = pool
        self._config = config
        self._clock = clock
        self._telemetry = telemetry
        self._max_chars = config.context_max_chars
        daily = DailySummarizer(
            pool,
            llm,
            config.summaries,
            telemetry=self._telemetry,
            max_parallel_days=config.max_parallel_days,
            events=events,
        )
        history = HistoricalSummarizer(pool, llm, config.summaries, telemetry=self._telemetry)
        self._builder = ContextBuilder(
            pool,
            daily,
            history,
            ContextMerger(llm, self._max_chars, telemetry=self._telemetry),
            max_chars=self._max_chars,
            cache_today_size=config.cache_today_size,
            cache_context_size=config.cache_context_size,
            clock=clock,
            telemetry=self._telemetry,
            timezone=self.timezone,
            reads=reads or MemberReads.direct(pool),
        )
        self._builds: SingleFlight[tuple[int, int], Built] = SingleFlight("memory_build")
        # Builds at once: in a burst of cold members the rest wait here (their replies get the
        # fallback within the budget) instead of every build and reply sharing the event loop
        # and the pool at once, which made every reply as slow as all the builds together.
        self._building = asyncio.Semaphore(config.max_parallel_builds)
        self._running: set[tuple[int, int]] = set()  # builds past the semaphore
        # The warm path: a member's last build, good for the rest of its local hour (today's
        # summary cannot change before then) unless invalidated. Serving it costs no database
        # round trip; everything it was built from invalidates it when it changes in-process.
        self._warm = WarmContexts(self._clock, config.cache_context_size)
        self._zones = GuildZones(pool, config.default_timezone)
        self._fallbacks = Fallbacks(self._builder, clock, telemetry, self._max_chars)
        self._closed = False

    # --- public ---------------------------------------------------------------------------

    async def get_memories(
        self, guild_id: int, user_id: int, *, budget: float, wait_in_queue: bool = True
    ) -> str | None:
        """The member's context for a reply, never raising; None when nothing is known.

        Waits at most `budget` seconds for the build; past that the fallback is served and the
        build goes on in the background for the next request. Without `wait_in_queue` (a
        burst), a build that would first wait for a free slot is not waited for at all.
        """
        try:
            report = await self._serve(guild_id, user_id, budget, wait_in_queue)
        except asyncio.CancelledError:
            raise
        except Exception:
            _log.exception("memory for %s/%s unavailable", guild_id, user_id)
            return None
        return report.text

    async def build_context(self, guild_id: int, user_id: int, *, budget: float) -> ContextReport:
        """Build (or serve from cache) the member's context within `budget` seconds, with the
        sources, sizes and costs of what was served."""
        return await self._serve(guild_id, user_id, budget)

    async def wait_for_context(self, guild_id: int, user_id: int) -> ContextReport:
        """The full build however long it takes (the CLI, admin views and benchmarks): no
        time budget, so a slow model delays the answer instead of serving the fallback."""
        return await self._serve(guild_id, user_id, None)

    async def stored_context(self, guild_id: int, user_id: int) -> ContextReport:
        """Only what is stored, served the way a fallback is: nothing is built and the LLM is
        never called (`memorybot memory show --no-build`)."""
        started = time.perf_counter()
        inputs, stored = await self._builder.stored_inputs(guild_id, user_id)
        text, served = fallback_context(stored, inputs, self._max_chars)
        return fallback_report(
            inputs,
            guild_id=guild_id,
            user_id=user_id,
            text=text,
            served=served,
            reason="stored only, nothing built (--no-build)",
            today=inputs.today,
            max_chars=self._max_chars,
            budget=None,
            started=started,
            shared=False,
        )

    async def _serve(
        self, guild_id: int, user_id: int, budget: float | None, wait_in_queue: bool = True
    ) -> ContextReport:
        if self._closed:
            raise RuntimeError("MemoryManager is closed")
        started = time.perf_counter()
        warm = self._warm.get(guild_id, user_id)
        if warm is not None:
            return self._served_warm("warm", warm, guild_id, budget, started, shared=False)
        task, shared = self._builds.start(
            (guild_id, user_id), lambda: self._build(guild_id, user_id)
        )
        last = self._warm.last(guild_id, user_id) if budget is not None else None
        if last is not None and not task.done():
            # A reply is never held hostage by memory building: the last good context of an
            # earlier hour today now, the build (started above) for the next reply.
            return self._served_warm("warm_last", last, guild_id, budget, started, shared=shared)
        queued = (guild_id, user_id) not in self._running and self._building.locked()
        if budget is not None and queued and not wait_in_queue:
            # A burst: this build starts only after the ones ahead of it, so the reply would
            # spend its whole budget waiting and then read the fallback anyway.
            return await self._fallbacks.serve(
                guild_id, user_id, "queued", None, budget, started, shared
            )
        reason: str | None = None
        error: BaseException | None = None
        try:
            if budget is None:
                built = await asyncio.shield(task)
            else:
                built = await asyncio.wait_for(asyncio.shield(task), budget)
        except TimeoutError:
            reason = "timeout"
        except LLMError as exc:
            reason, error = "llm_error", exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            reason, error = "db_error", exc
        except Exception as exc:  # a bug must not cost the member their reply
            _log.exception("memory build for %s/%s failed", guild_id, user_id)
            reason, error = "error", exc
        if reason is not None:
            return await self._fallbacks.serve(
                guild_id, user_id, reason, error, budget, started, shared
            )
        return report_of(
            served_context(built.inputs, built.parts, self._warm),
            built.stats,
            self._max_chars,
            budget=budget,
            started=started,
            shared=shared,
        )

    def _served_warm(
        self,
        cache: str,
        context: ServedContext,
        guild_id: int,
        budget: float | None,
        started: float,
        *,
        shared: bool,
    ) -> ContextReport:
        """A context served from the warm path (`cache`: warm, or warm_last), counted a hit."""
        self._telemetry.emit("cache", cache=cache, hit=True, guild_id=guild_id)
        stats = BuildStats()
        stats.cache(cache, True)
        return report_of(
            context, stats, self._max_chars, budget=budget, started=started, shared=shared
        )

    def invalidate(self, guild_id: int, user_id: int) -> None:
        """Forget cached results for one member (facts changed, or a purge). Synchronous, so it
        can be a plain change listener; the next request rebuilds from the new inputs."""
        member = (guild_id, user_id)
        self._warm.invalidate(guild_id, user_id)
        dropped = self._builder.forget_member(guild_id, user_id)
        self._builds.detach(lambda key: key == member)
        _log.debug("invalidated %d cached entries for %s/%s", dropped, guild_id, user_id)

    def learned_changed(self, guild_id: int, user_id: int) -> None:
        """Chat taught something new about a member: their merged context is stale, nothing
        else is (today's notes and histories are what it was learned from), so only their
        warm build, cached merges and builds under way are dropped."""
        member = (guild_id, user_id)
        self._warm.invalidate(guild_id, user_id)
        self._builder.forget_merges(guild_id, user_id)
        self._builds.detach(lambda key: key == member)

    async def summarize_day(self, guild_id: int, day: date, force: bool = True) -> DayResult:
        """(Re)summarise one guild-day now; `force` recomputes even an up-to-date day."""
        timezone = await self.timezone(guild_id)
        result = await self._builder.daily.ensure_day(guild_id, day, timezone, force=force)
        if result.computed:
            self._builder.day_changed(guild_id, day)
            self.invalidate_guild(guild_id)
        return result

    async def due_days(self, guild_id: int) -> list[date]:
        """Every past day that no stored summary describes (see `days_to_close`)."""
        span = await stored_days(
            self._pool, guild_id, self._clock.now(), await self.timezone(guild_id)
        )
        return await self.days_to_close(guild_id, *span) if span else []

    async def close_due_days(self, guild_id: int) -> list[date]:
        """Close now every past day that no stored summary describes (after a visibility
        change: what the worker would do later, done by the process that made the change)."""
        days = await self.due_days(guild_id)
        for day in days:
            await self.close_day(guild_id, day)
        return days

    async def check_day(self, guild_id: int, day: date) -> None:
        """DayOutOfRange for a day asked for that is in the future or before anything stored."""
        timezone = await self.timezone(guild_id)
        await check_asked_day(self._pool, guild_id, day, self._clock.now(), timezone)

    async def close_day(self, guild_id: int, day: date) -> DayResult:
        """A worker's job: close one past day (its summaries and learned facts); when that day is
        yesterday, also build the histories of the members asked about lately in one batched
        call, as a request would have, so the next requests cost no history call each."""
        result = await self.summarize_day(guild_id, day, force=False)
        today = local_day(self._clock.now(), await self.timezone(guild_id))
        if day == today - timedelta(days=1):
            await self._builder.batch_histories(guild_id, today)
        return result

    async def days_to_close(self, guild_id: int, first: date, last: date) -> list[date]:
        """The days in [first, last] whose messages no stored summary describes yet (never
        closed, or changed since): what closing them would do. Days nobody spoke on, and days
        retention emptied, are not among them."""
        if last < first:
            return []
        timezone = await self.timezone(guild_id)
        days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
        start, end = day_bounds(first, timezone)[0], day_bounds(last, timezone)[1]
        states = await day_states(self._pool, guild_id, days, timezone, start, end)
        return [day for day in days if states[day].due and not states[day].expired]

    def invalidate_guild(self, guild_id: int) -> None:
        """Drop the warm builds of a guild (its days were re-summarised, its settings changed)."""
        self._warm.invalidate_guild(guild_id)
        self._zones.forget(guild_id)

    def messages_changed(self) -> None:
        """Stored messages were edited or deleted somewhere: past days may be stale, so no
        warm build is trusted; the next request re-checks the days (no LLM call unless stale),
        and today's notes held in memory are read again where their messages changed."""
        self._warm.clear()
        self._builder.messages_changed()

    async def timezone(self, guild_id: int) -> str:
        """The guild's timezone (guilds.timezone), else DEFAULT_TIMEZONE."""
        return await self._zones.timezone(guild_id)

    def now(self) -> datetime:
        return self._clock.now()

    async def aclose(self) -> None:
        """Cancel background builds and summaries; safe to call twice."""
        self._closed = True
        await self._builds.aclose()
        await self._builder.aclose()

    # --- the build ------------------------------------------------------------------------

    async def _build(self, guild_id: int, user_id: int) -> Built:
        async with self._building:
            self._running.add((guild_id, user_id))
            try:
                epoch = self._warm.epoch
                built = await self._builder.build(guild_id, user_id)
            finally:
                self._running.discard((guild_id, user_id))
        self._warm.put(served_context(built.inputs, built.parts, self._warm), epoch=epoch)
        return built
