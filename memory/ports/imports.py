"""Importing DiscordChatExporter exports: one use case, whoever imports.

`memorybot import` and the benches that judge memory on imported histories (LoCoMo, the
template bench, the embedder's import) all run it: each file through an `ExportImporter`, then
`settle`, which does what an import owes the rest of memory, in order: the planner's
statistics sampled (the first questions are planned for what was stored), each guild cut into
episodes as live chat would be (and, when learning, those summarised), its messages that
have no vector yet embedded for recall by meaning (a provider that fails leaves them to the
next import of the same files), and, when learning, every imported day that is over closed
(summaries and learned facts kept before retention deletes the raw messages); last, the
statistics of the tables those steps filled. A bench that replayed these steps by hand
drifted from the command twice; now there is one sequence.

What a front end shows of it (spinners, a day counter, one line per guild and step) it hears
through an `ImportWatcher`; a bench passes none.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

import asyncpg

from memory.core.clock import Clock, local_day
from memory.core.telemetry import Telemetry
from memory.ingest import ExportImporter, ImportResult
from memory.llm import LLMError
from memory.ports.reports import Contexts, Episodes
from memory.recall import EmbeddingIndex

_log = logging.getLogger(__name__)

# The steps `settle` reports, per guild.
EPISODES, EMBEDDED, CLOSED = "episodes", "embedded", "closed"
# The tables each step fills: sampled for the planner once it wrote to them.
_FILLS = {
    EPISODES: ("episodes",),
    EMBEDDED: ("message_embeddings",),
    CLOSED: ("summary_days", "daily_summaries", "day_notes", "learned_facts"),
}


@dataclass(frozen=True, slots=True)
class ImportSettings:
    """What an export import needs to know of the settings."""

    max_message_chars: int
    default_timezone: str


@dataclass(frozen=True, slots=True)
class Settled:
    """One step done for one imported guild: `count` episodes cut, messages embedded, or days
    closed of the `due` that were not yet."""

    step: str
    guild_id: int
    guild_name: str
    count: int
    due: int = 0
    problem: str = ""  # why the step could not be done (it is left for another run)


class ImportWatcher(Protocol):
    """What a front end hears while an import settles."""

    def working(self, what: str) -> AbstractContextManager[None]:
        """A step of unknown length runs ("cutting <guild> into episodes")."""
        ...

    def closing(self, done: int, due: int) -> None:
        """Days closed so far of a guild's `due`."""
        ...

    def settled(self, step: Settled) -> None: ...


class _Quiet:
    """The watcher of a caller that shows nothing (a bench)."""

    def working(self, what: str) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def closing(self, done: int, due: int) -> None:
        return None

    def settled(self, step: Settled) -> None:
        return None


class Imports:
    """Exports in, and what an import owes the rest of memory."""

    def __init__(
        self,
        *,
        pool: asyncpg.Pool,
        telemetry: Telemetry,
        settings: ImportSettings,
        episodes: Episodes,
        contexts: Contexts,
        embeddings: EmbeddingIndex,
        clock: Clock,
    ) -> None:
        self._pool = pool
        self._telemetry = telemetry
        self._settings = settings
        self._episodes = episodes
        self._contexts = contexts
        self._embeddings = embeddings
        self._clock = clock

    def importer(self, *, include_bots: bool) -> ExportImporter:
        """An importer of DiscordChatExporter files into this database (one per run)."""
        return ExportImporter(
            self._pool,
            include_bots=include_bots,
            max_chars=self._settings.max_message_chars,
            default_timezone=self._settings.default_timezone,
            telemetry=self._telemetry,
        )

    async def settle(
        self,
        importer: ExportImporter,
        results: Sequence[ImportResult],
        *,
        learn: bool,
        watcher: ImportWatcher | None = None,
    ) -> list[Settled]:
        """What the imported files owe the rest of memory (the module's steps, in its order);
        every step done, in the order done. Files imported again find little left to do:
        their episodes are cut, their messages embedded and their days closed already."""
        watch = watcher or _Quiet()
        if any(result.new for result in results):
            await importer.refresh_statistics()
        done = await self._cut_episodes(results, learn=learn, watch=watch)
        done += await self._embed(results, watch=watch)
        if learn:
            done += await self._close_days(results, watch=watch)
        written = sorted({table for step in done if step.count for table in _FILLS[step.step]})
        if written:  # the reply path's reads of them are planned for what is there
            await importer.refresh_statistics(written)
        return done

    async def _cut_episodes(
        self, results: Sequence[ImportResult], *, learn: bool, watch: ImportWatcher
    ) -> list[Settled]:
        done = []
        for guild_id, name in _guilds(results).items():
            with watch.working(f"cutting {name} into episodes"):
                cut = await self._episodes.cut_guild(guild_id)
            if learn:
                with watch.working(f"summarising the episodes of {name}"):
                    await self._episodes.summarize_guild(guild_id)
            done.append(_told(watch, Settled(EPISODES, guild_id, name, cut)))
        return done

    async def _embed(
        self, results: Sequence[ImportResult], *, watch: ImportWatcher
    ) -> list[Settled]:
        """Every imported guild's messages that have no vector yet embedded (batched), so the
        first question already finds them by meaning; nothing when no embedder is on (or the
        database lacks pgvector). A provider that fails leaves the rest for the next import
        of the same files (the worker's sweep looks only at recent days): the days still
        close."""
        if not await self._embeddings.ready():
            return []
        done = []
        for guild_id, name in _guilds(results).items():
            try:
                with watch.working(f"embedding the messages of {name}"):
                    embedded = await self._embeddings.embed_guild(guild_id)
            except LLMError as exc:
                _log.warning("embedding guild %s after its import failed: %s", guild_id, exc)
                step = Settled(EMBEDDED, guild_id, name, 0, problem=str(exc) or type(exc).__name__)
            else:
                step = Settled(EMBEDDED, guild_id, name, embedded)
            done.append(_told(watch, step))
        return done

    async def _close_days(
        self, results: Sequence[ImportResult], *, watch: ImportWatcher
    ) -> list[Settled]:
        """Every imported day that is over and not yet closed (empty calendar days are not
        work; days closed already cost nothing, so an interrupted run resumes)."""
        names = _guilds(results)
        done = []
        for guild_id, (first_at, last_at) in imported_spans(results).items():
            timezone = await self._contexts.timezone(guild_id)
            today = local_day(self._clock.now(), timezone)
            first_day = local_day(first_at, timezone)
            last_day = min(local_day(last_at, timezone), today - timedelta(days=1))
            days = await self._contexts.days_to_close(guild_id, first_day, last_day)
            closed = 0
            for index, day in enumerate(days, start=1):
                summarized = await self._contexts.summarize_day(guild_id, day, force=False)
                closed += int(summarized.computed)
                watch.closing(index, len(days))
            step = Settled(CLOSED, guild_id, names.get(guild_id, ""), closed, len(days))
            done.append(_told(watch, step))
        return done


def _told(watch: ImportWatcher, step: Settled) -> Settled:
    watch.settled(step)
    return step


def _guilds(results: Sequence[ImportResult]) -> dict[int, str]:
    """The imported guilds by id, with the name each export gave (or "guild <id>")."""
    names: dict[int, str] = {}
    for result in sorted(results, key=lambda item: item.guild_id or 0):
        if result.guild_id:
            names[result.guild_id] = (
                names.get(result.guild_id) or result.guild_name or f"guild {result.guild_id}"
            )
    return names


def imported_spans(results: Sequence[ImportResult]) -> dict[int, tuple[datetime, datetime]]:
    """Per guild (in the order the results first name it), its imported messages' first and
    last times; a result with no message names none."""
    spans: dict[int, tuple[datetime, datetime]] = {}
    for result in results:
        if result.first_at is None or result.last_at is None:
            continue
        first, last = spans.get(result.guild_id, (result.first_at, result.last_at))
        spans[result.guild_id] = (min(first, result.first_at), max(last, result.last_at))
    return spans
