"""The factual memory of one member: remember, forget, undo and history, safe under concurrency.

Concurrency design (why not hold a row lock across the LLM call): an LLM merge can take tens of
seconds with retries, and a transaction held open that long pins a pool connection and a row
lock, so a burst of commands would starve ingestion and every other member. Instead:

1. Within this process, writers for one member queue on an asyncio lock, so each merge starts
   from the previous merge's result and no LLM call is wasted.
2. The blob and its `version` are read without a lock; the LLM merges outside any transaction.
3. The write is a short transaction: insert the row if missing, `SELECT ... FOR UPDATE`, and
   store only if the version is still the one the merge started from (compare-and-swap). If
   another process got there first, the merge is redone on the fresh blob.
4. After a few lost races (heavy cross-process contention) one last attempt holds the row lock
   through the merge, bounded by a timeout, so progress is guaranteed.

A failed read raises before anything is written, a failed LLM call writes nothing, and a stale
read can never be stored, so no path turns a failure into an overwrite.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import KW_ONLY, InitVar, dataclass, replace

import asyncpg

from db import facts as store
from db import learned as learned_store
from memory.core.events import EventBus, MemberChanged, StatementForgotten
from memory.core.keyed_lock import KeyedLock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.facts._merging import FactMerger
from memory.facts._model import (
    Compute,
    FactChange,
    FactError,
    FactsConfig,
    FactsFull,
    FactsUnavailable,
    Plan,
    Provenance,
    StatementTooLong,
    prompt_member,
)
from memory.facts._plan_store import store_plan
from memory.facts._text import covers, normalise_statement
from memory.language import restates
from memory.llm import LLMError, MemoryLLM

_log = logging.getLogger(__name__)

OPTIMISTIC_ATTEMPTS = 3


@dataclass(eq=False)
class FactService:
    """Remember/forget/undo for (guild, member) blobs, with history and change notification."""

    pool: asyncpg.Pool
    llm: MemoryLLM
    settings: FactsConfig
    _: KW_ONLY
    telemetry: Telemetry
    events: InitVar[EventBus | None] = None
    fallback: InitVar[MemoryLLM | None] = None

    def __post_init__(self, events: EventBus | None, fallback: MemoryLLM | None) -> None:
        # A deterministic merge (the offline provider) for when a model's merge would lose
        # facts it was not asked to drop; without one such a merge is refused.
        self._merger = FactMerger(self.llm, fallback, self.settings, telemetry=self.telemetry)
        # Told every change (MemberChanged) and every forget (StatementForgotten).
        self._events = events or EventBus()
        self._locks = KeyedLock()
        # The rare locked attempt may make the merge's two model calls, each with its timeout.
        self._locked_budget = self.settings.llm_timeout_seconds * 3

    @property
    def max_chars(self) -> int:
        """FACTS_MAX_CHARS: the longest a member's facts may grow."""
        return self.settings.facts_max_chars

    # --- reads ------------------------------------------------------------------------------

    async def blob(self, guild_id: int, user_id: int) -> str:
        record = await store.get_facts(self.pool, guild_id, user_id)
        return record.blob if record else ""

    async def history(
        self, guild_id: int, user_id: int, *, limit: int = 20
    ) -> list[store.HistoryRecord]:
        return await store.get_history(self.pool, guild_id, user_id, limit=limit)

    async def forgotten(self, guild_id: int, user_id: int) -> list[str]:
        return await store.get_forgotten(self.pool, guild_id, user_id)

    # --- writes -----------------------------------------------------------------------------

    def check_statement(self, statement: str) -> str:
        """Validate a statement before any work: non-empty and within the configured limit."""
        text = statement.strip()
        if not text:
            raise FactError("there is nothing to remember in an empty statement")
        limit = self.settings.fact_statement_max_chars
        if len(text) > limit:
            raise StatementTooLong(len(text), limit)
        return text

    async def remember(
        self,
        guild_id: int,
        member: Member,
        statement: str,
        *,
        actor_id: int | None,
        command: str = "remember",
        source_message_id: int | None = None,
    ) -> FactChange:
        """Merge `statement` into the member's blob. Explicitly remembering something that was
        forgotten lifts the forget for it."""
        text = self.check_statement(statement)
        origin = Provenance(actor_id, command, source_message_id, "remember")
        with self.telemetry.span("remember", guild_id=guild_id, user_id=member.user_id) as span:
            async with self._locks.hold((guild_id, member.user_id)):
                compute = self._remember_plan(member, text)
                change = await self._apply(guild_id, member.user_id, compute, origin, "remember")
            span.update(
                version=change.version,
                chars=len(change.new_blob),
                unforgotten=change.unforgotten or None,
            )
        await self._notify(guild_id, member.user_id)
        return change

    async def forget(
        self,
        guild_id: int,
        member: Member,
        statement: str,
        *,
        actor_id: int | None,
        command: str = "forget",
        source_message_id: int | None = None,
    ) -> FactChange:
        """Remove claims matching `statement` and record it so it is not learned again.

        The statement is recorded even when the blob did not hold it: the summaries of chat
        may, and they honour the forgotten list too."""
        text = self.check_statement(statement)
        origin = Provenance(actor_id, command, source_message_id, "forget")
        with self.telemetry.span("forget", guild_id=guild_id, user_id=member.user_id) as span:
            async with self._locks.hold((guild_id, member.user_id)):
                compute = self._forget_plan(member, text)
                change = await self._apply(guild_id, member.user_id, compute, origin, "forget")
                unlearned = await self._unlearn(guild_id, member, text)
            if unlearned and not change.found:
                change = replace(change, found=True)
            span.update(found=change.found, version=change.version, unlearned=unlearned or None)
        await self._notify(guild_id, member.user_id)
        await self._events.publish(StatementForgotten(guild_id, member, text))
        return change

    async def _unlearn(self, guild_id: int, member: Member, statement: str) -> int:
        """Forgetting reaches what chat taught too: learned facts restating the statement go
        (current and superseded alike); the forgotten statement keeps them from coming back."""
        names = list(member.names)
        learned = await learned_store.all_facts(self.pool, guild_id, member.user_id)
        gone = [fact.id for fact in learned if restates(fact.statement, statement, names=names)]
        return await learned_store.delete_facts(self.pool, guild_id, gone) if gone else 0

    async def undo(
        self,
        guild_id: int,
        user_id: int,
        *,
        actor_id: int | None,
        command: str = "undo",
        source_message_id: int | None = None,
    ) -> FactChange | None:
        """Restore the blob as it was before the latest change not yet undone; None when there is
        nothing to undo. Undoing a forget also lifts the forget."""
        origin = Provenance(actor_id, command, source_message_id, "undo")
        with self.telemetry.span("undo", guild_id=guild_id, user_id=user_id) as span:
            async with self._locks.hold((guild_id, user_id)):
                change = await self._undo_locked(guild_id, user_id, origin)
            span["outcome"] = "ok" if change else "nothing"
        if change is not None:
            await self._notify(guild_id, user_id)
        return change

    # --- internals --------------------------------------------------------------------------

    async def _apply(
        self, guild_id: int, user_id: int, compute: Compute, origin: Provenance, during: str
    ) -> FactChange:
        """Run `compute` on the current blob and store its plan without losing a concurrent
        change: optimistic attempts first, then one attempt holding the row lock."""
        for _attempt in range(OPTIMISTIC_ATTEMPTS):
            current = await store.get_facts(self.pool, guild_id, user_id)
            old_blob, version = (current.blob, current.version) if current else ("", 0)
            records = await store.get_forgotten_records(self.pool, guild_id, user_id)
            plan = await compute(old_blob, records)
            async with self.pool.acquire() as connection, connection.transaction():
                locked = await store.lock_facts(connection, guild_id, user_id)
                if locked.version == version and locked.blob == old_blob:
                    return await store_plan(connection, locked, plan, origin)
            self.telemetry.emit("facts_conflict", guild_id=guild_id, user_id=user_id, during=during)
        # Other processes keep winning the race: compute once more while holding the row lock,
        # bounded so a hung model cannot pin the row and the connection for long.
        async with self.pool.acquire() as connection, connection.transaction():
            locked = await store.lock_facts(connection, guild_id, user_id)
            records = await store.get_forgotten_records(connection, guild_id, user_id)
            try:
                async with asyncio.timeout(self._locked_budget):
                    plan = await compute(locked.blob, records)
            except TimeoutError as exc:
                raise FactsUnavailable("the language model took too long") from exc
            return await store_plan(connection, locked, plan, origin)

    def _remember_plan(self, member: Member, statement: str) -> Compute:
        guild_id = member.guild_id

        async def compute(blob: str, records: list[store.ForgottenRecord]) -> Plan:
            names = member.names
            lift = tuple(r.id for r in records if covers(statement, r.statement, names))
            forgotten = [record.statement for record in records if record.id not in lift]
            merged, dropped = await self._merger.merge(guild_id, member, blob, statement, forgotten)
            return Plan(merged, statement, lift=lift, names=names, dropped=dropped)

        return compute

    def _forget_plan(self, member: Member, statement: str) -> Compute:
        async def compute(blob: str, records: list[store.ForgottenRecord]) -> Plan:
            if not blob:
                return Plan(blob, statement, forget=statement, found=False)
            try:
                result = await self.llm.forget(
                    guild_id=member.guild_id,
                    member=prompt_member(member),
                    blob=blob,
                    statement=statement,
                )
            except LLMError as exc:
                raise FactsUnavailable(f"the language model failed: {exc}") from exc
            pruned = result.blob.strip()
            # "Found" with nothing removed is no change; "not found" keeps the blob verbatim.
            found = result.found and pruned != blob.strip()
            kept = pruned if found else blob
            return Plan(kept, statement, forget=statement, found=found, names=member.names)

        return compute

    async def _undo_locked(
        self, guild_id: int, user_id: int, origin: Provenance
    ) -> FactChange | None:
        async with self.pool.acquire() as connection, connection.transaction():
            locked = await store.lock_facts(connection, guild_id, user_id)
            target = await store.last_undoable(connection, guild_id, user_id)
            if target is None:
                return None
            lift: tuple[int, ...] = ()
            if target.operation == "forget" and target.statement:
                # Undoing a forget lifts it (the newest matching record is the one it added).
                records = await store.get_forgotten_records(connection, guild_id, user_id)
                wanted = normalise_statement(target.statement)
                ids = [r.id for r in records if normalise_statement(r.statement) == wanted]
                lift = tuple(ids[-1:])
            plan = Plan(target.old_blob, target.statement or "", lift=lift, reverts_id=target.id)
            return await store_plan(connection, locked, plan, origin)

    async def _notify(self, guild_id: int, user_id: int) -> None:
        # A broken cache must not undo a stored fact: the bus logs a failing handler.
        await self._events.publish(MemberChanged(guild_id, user_id))


__all__ = [
    "OPTIMISTIC_ATTEMPTS",
    "FactChange",
    "FactError",
    "FactService",
    "FactsFull",
    "FactsUnavailable",
    "StatementTooLong",
]
