"""What keeps the bot running: usage and stats for admins, the job queue, retention, shards,
slash-command syncs, and which LLM answers each purpose.

The client, the status cog, the dashboard and the CLI's operational commands see this face
and the protocols `JobWorker` (`Worker`), `RetentionJob` (`Retention`) and `DailyTokenBudget`
(`TokenBudget`) satisfy as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

import asyncpg

from memory.core.shards import ShardPlan
from memory.core.telemetry import Telemetry
from memory.database import CommandSyncs, hold_shards
from memory.ingest import BatchedWriter
from memory.jobs import HeldJob, QueuedJob
from memory.llm import MemoryLLM
from memory.privacy import RetentionReport
from memory.telemetry import UsageRollup, build_stats, render_stats
from memory.usage import UsageRecorder
from memory.views import ActivityViews, MemberViews


@dataclass(frozen=True, slots=True)
class AdminViews:
    """The dashboard's read-only views (counts for charts, a member's facts with privacy
    applied), over the same pool and statement timeout as every service."""

    activity: ActivityViews
    members: MemberViews


class JobQueueView(Protocol):
    """The job queue as an admin sees it (`JobQueue`)."""

    async def sizes(self) -> list[QueuedJob]:
        """Jobs waiting or running, per entrypoint and status."""
        ...

    async def held(self, limit: int = 50) -> list[HeldJob]:
        """Jobs held as failed, newest first, with the last error each logged."""
        ...

    async def retry_held(self) -> int: ...

    async def close_day(self, guild_id: int, day: date) -> bool:
        """Queue the close of one guild-day; False when it is already queued or running."""
        ...


class Worker(Protocol):
    """Background jobs on the PostgreSQL queue (`JobWorker`)."""

    @property
    def queue(self) -> JobQueueView: ...

    def start(self) -> None:
        """Start taking jobs and sweeping on the running loop (idempotent)."""
        ...


class Retention(Protocol):
    """Deleting raw messages past RETENTION_DAYS (`RetentionJob`)."""

    async def run(
        self, *, retention_days: int | None = None, dry_run: bool = False
    ) -> RetentionReport: ...


class TokenBudget(Protocol):
    """LLM_DAILY_TOKEN_BUDGET and the day's tokens spent (`DailyTokenBudget`)."""

    @property
    def limit(self) -> int | None:
        """None: no limit."""
        ...

    async def spent(self, day: date) -> int: ...


class Operations:
    """The running bot as an operator sees it."""

    def __init__(
        self,
        *,
        pool: asyncpg.Pool,
        telemetry: Telemetry,
        llm: MemoryLLM,
        writer: BatchedWriter,
        usage: UsageRollup,
        usage_recorder: UsageRecorder,
        shards: ShardPlan,
    ) -> None:
        self._pool = pool
        self._telemetry = telemetry
        self._llm = llm
        self._writer = writer
        self._usage = usage
        self._recorder = usage_recorder
        self._shards = shards
        self.views = AdminViews(
            activity=ActivityViews(pool, usage_recorder.prices), members=MemberViews(pool)
        )
        # The slash-command tree last synced per scope (the client syncs only a changed one).
        self.command_syncs = CommandSyncs(pool)

    # --- usage --------------------------------------------------------------------------

    def stats_text(self) -> str:
        """LLM usage, cache hit rates, queue depth and recent fallbacks, for an admin."""
        report = build_stats(
            self._usage,
            self._telemetry.recent(),
            now=datetime.now(UTC),
            queue_depth=self._writer.depth,
        )
        return render_stats(report) + "\n" + self._recorder.today_line()

    async def usage_text(self, *, guild_id: int | None, days: int, label: str = "") -> str:
        """`memorybot usage`: the last `days` UTC days of LLM calls, tokens and estimated cost
        (`label`: the guild as the admin knows it)."""
        first_day = datetime.now(UTC).date() - timedelta(days=days - 1)
        scope = label or (f"guild {guild_id}" if guild_id is not None else "all guilds")
        return await self._recorder.report(first_day, guild_id=guild_id, scope=scope)

    def chain_for(self, purpose: str) -> Sequence[str]:
        """The providers tried, in order, for an LLM purpose."""
        chain: Any = self._llm.provider
        if hasattr(chain, "chain_for"):
            return list(chain.chain_for(purpose))
        return [chain.name]

    def model_for(self, provider: str, purpose: str) -> str:
        """The model `provider` uses for `purpose` ('' when it names none)."""
        chain: Any = self._llm.provider
        for member in getattr(chain, "providers", [chain]):
            if member.name == provider:
                return str(member.model_for(purpose))
        return ""

    # --- this process on Discord --------------------------------------------------------

    def claim_shards(
        self, on_lost: Callable[[], None] | None = None, *, watch_seconds: float = 15.0
    ) -> AbstractAsyncContextManager[None]:
        """Hold this process's shards (SHARD_COUNT/SHARD_IDS) while the block runs; raises
        ShardTaken, naming the holder, when another live process runs one of them. `on_lost`
        is called if another process took them after the database session was lost."""
        return hold_shards(self._pool, self._shards, on_lost=on_lost, watch_seconds=watch_seconds)
