"""Caches that hear other processes: every invalidation this process makes is also published
(NOTIFY), and every other process's is applied here (LISTEN); a reconnect drops everything."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from typing import Protocol

import asyncpg

from db.notify import InvalidationListener, new_origin, publish
from memory.context import MemoryManager
from memory.core.events import (
    FactLearned,
    GuildChanged,
    MemberBack,
    MemberChanged,
    MemberGone,
    MessagesChanged,
    StatementForgotten,
)
from memory.replies import ReplyComposer

_log = logging.getLogger(__name__)


class HeldRows(Protocol):
    """Rows about members kept in memory (names, consent, forgotten statements)."""

    def forget(self, guild_id: int, user_id: int | None = None) -> None: ...

    def forget_all(self) -> None: ...


class CrossProcessCaches:
    """Keeps every process's caches true: local invalidations are also published (NOTIFY),
    other processes' are applied here (LISTEN); a reconnect drops everything held."""

    def __init__(self, pool: asyncpg.Pool, manager: MemoryManager) -> None:
        self._pool = pool
        self._manager = manager
        # The conversation windows (set once the composer exists): words that are gone leave
        # them in every process too.
        self.replies: ReplyComposer | None = None
        # What the reply path keeps about members (the directory's rows, consent, forgotten
        # statements): every change of a member drops theirs (`hold`).
        self._held: list[HeldRows] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._origin = new_origin()
        self.listener = InvalidationListener(
            pool, self._apply, self._reconnected, origin=self._origin
        )

    def hold(self, rows: HeldRows) -> None:
        """Keep `rows` true: a member's change drops theirs, a guild's change the guild's."""
        self._held.append(rows)

    def member(self, changed: MemberChanged) -> None:
        self._member_changed(changed.guild_id, changed.user_id)
        self._publish(kind="member", guild_id=changed.guild_id, user_id=changed.user_id)

    def learned(self, learned: FactLearned) -> None:
        """Chat taught something new about a member: their merged context goes, here and in
        every process (names, consent and today's notes are untouched)."""
        self._manager.learned_changed(learned.guild_id, learned.user_id)
        self._publish(kind="learned", guild_id=learned.guild_id, user_id=learned.user_id)

    def guild_changed(self, changed: GuildChanged) -> None:
        self.guild(changed.guild_id)

    def guild(self, guild_id: int) -> None:
        self._guild_changed(guild_id)
        self._publish(kind="guild", guild_id=guild_id)

    def messages(self, _changed: MessagesChanged) -> None:
        self._manager.messages_changed()
        self._publish(kind="messages")

    async def member_gone(self, gone: MemberGone) -> None:
        """A member opted out or was purged: their contexts and their turns in every window
        go, and their next messages stay out of the windows, in every process."""
        guild_id, user_id = gone.guild_id, gone.user_id
        self._member_changed(guild_id, user_id)
        if self.replies is not None:
            await self.replies.keeper.member_gone(guild_id, user_id)
        self._publish(kind="gone", guild_id=guild_id, user_id=user_id)

    def member_back(self, back: MemberBack) -> None:
        """Opted in again: every process lets their words into the windows again (the windows'
        gate reads the consent this drops)."""
        self._member_changed(back.guild_id, back.user_id)
        self._publish(kind="back", guild_id=back.guild_id, user_id=back.user_id)

    async def forgot_about(self, forgotten: StatementForgotten) -> None:
        """A forget was asked for: `forgot` for the member it was about."""
        member = forgotten.member
        await self.forgot(forgotten.guild_id, member.user_id, forgotten.statement, member.names)

    async def forgot(
        self, guild_id: int, user_id: int, statement: str, names: Sequence[str]
    ) -> None:
        """A statement was forgotten: it leaves every process's windows (contexts follow the
        fact change itself); a forgotten alias leaves the member's cached row."""
        self._forget_held(guild_id, user_id)
        if self.replies is not None:
            await self.replies.keeper.statement_forgotten(guild_id, user_id, statement, names)
        self._publish(
            kind="forgot",
            guild_id=guild_id,
            user_id=user_id,
            statement=statement,
            names=list(names),
        )

    def _reconnected(self) -> None:
        """Invalidations may have been missed while disconnected: drop everything held."""
        self._manager.messages_changed()
        for rows in self._held:
            rows.forget_all()

    def _member_changed(self, guild_id: int, user_id: int) -> None:
        self._manager.invalidate(guild_id, user_id)
        self._forget_held(guild_id, user_id)

    def _guild_changed(self, guild_id: int) -> None:
        self._manager.invalidate_guild(guild_id)
        self._forget_held(guild_id, None)

    def _forget_held(self, guild_id: int, user_id: int | None) -> None:
        for rows in self._held:
            rows.forget(guild_id, user_id)

    def _publish(self, **event: object) -> None:
        task = asyncio.create_task(self._send(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, event: dict[str, object]) -> None:
        try:
            await publish(self._pool, self._origin, **event)
        except Exception as exc:  # the others catch up at their next hour bucket
            _log.warning("could not publish an invalidation: %s", type(exc).__name__)

    def _apply(self, event: dict[str, object]) -> None:
        kind = event.get("kind")
        guild_id, user_id = _id(event.get("guild_id")), _id(event.get("user_id"))
        if kind == "member":
            self._member_changed(guild_id, user_id)
        elif kind == "learned":
            self._manager.learned_changed(guild_id, user_id)
        elif kind == "guild":
            self._guild_changed(guild_id)
        elif kind == "gone":
            self._member_changed(guild_id, user_id)
            if self.replies is not None:
                self._run(self.replies.keeper.member_gone(guild_id, user_id))
        elif kind == "back":
            self._member_changed(guild_id, user_id)
        elif kind == "forgot":
            self._forget_held(guild_id, user_id)
            if self.replies is not None:
                statement = str(event.get("statement") or "")
                listed = event.get("names")
                names = [str(name) for name in listed] if isinstance(listed, list) else []
                self._run(
                    self.replies.keeper.statement_forgotten(guild_id, user_id, statement, names)
                )
        else:
            self._manager.messages_changed()

    def _run(self, work: Awaitable[object]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                _log.exception("applying another process's invalidation failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        await self.listener.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _id(value: object) -> int:
    """An id from an event payload (JSON numbers, or text), 0 when absent."""
    return int(value) if isinstance(value, int | str) and str(value).isdigit() else 0
