"""The privacy desk: one place for the export and purge flows every front end uses.

`/memory purge`, `memorybot user purge` and (later) opt-outs all need the same steps in the
same order: flush queued writes (their messages must not land after the purge), delete in one
transaction, drop every cached context the member was part of, then re-summarise the days they
shared with others. Keeping that sequence here means no front end can forget a step.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from datetime import date
from typing import Any

import asyncpg

from db.consent import (
    Consent,
    consent_of,
    consented_by_name,
    delete_messages_of,
    name_key,
    record_consent,
    unconsented_members,
)
from db.guilds import guild_names
from memory.core.clock import Clock
from memory.core.events import EventBus, MemberBack, MemberChanged, MemberGone, MemberPurged
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.privacy._export_purge import (
    AmbiguousMember,
    PurgeReport,
    Subject,
    UnknownMember,
    export_member,
    parse_member_id,
    purge_member,
    purge_preview,
    resolve_guild,
    resolve_subject,
)

_log = logging.getLogger(__name__)

# How an admin finds a member's id when no name of theirs is known any more.
ID_HINT = (
    "a member who opted out is found by their id (in Discord: Settings > Advanced > Developer "
    "Mode, then right-click the member > Copy User ID)"
)

# The smallest id Discord can give: a snowflake carries its creation time above bit 22, so an
# id below this (0, 42) was never a user's. Only ids the bot has never seen are held to it.
MIN_DISCORD_ID = 1 << 22

FlushWrites = Callable[[], Awaitable[None]]
Resummarize = Callable[[int, date], Awaitable[object]]
ReadConsent = Callable[[int, int], Awaitable[Consent | None]]


@dataclass(eq=False)
class PrivacyDesk:
    """Resolve, export and purge members; owns the background re-summaries it starts."""

    # What the desk asks of the rest of memory is passed in, so privacy imports none of
    # it; what it tells (MemberChanged, MemberPurged, MemberGone, MemberBack) goes to
    # `events`. `read_consent`: the consent the reply path holds (the database when not
    # given).
    pool: asyncpg.Pool
    _: KW_ONLY
    flush_writes: FlushWrites
    resummarize: Resummarize
    events: EventBus
    default_timezone: str
    clock: Clock
    telemetry: Telemetry
    read_consent: ReadConsent | None = None
    _background: set[asyncio.Task[list[date]]] = field(init=False, default_factory=set)

    async def guild(self, text: str) -> int:
        """A guild id, or the exact name of a known guild (PrivacyError otherwise)."""
        return await resolve_guild(self.pool, text)

    async def guild_names(self, guild_ids: list[int]) -> dict[int, str]:
        """The names of known guilds (ids it does not know are left out): for admin output."""
        return await guild_names(self.pool, guild_ids)

    async def subject(self, guild_id: int, text: str) -> Subject:
        """The member named by an id, a mention or any name (PrivacyError otherwise); a
        member who opted out (nothing held any more) by their id or a name they had."""
        try:
            return await resolve_subject(self.pool, guild_id, text)
        except UnknownMember as exc:
            chosen = await self._chosen(guild_id, text)
            if chosen is not None:
                return chosen
            hint = "" if parse_member_id(text) is not None else f"; {ID_HINT}"
            raise UnknownMember(f"{exc}{hint}") from None

    async def _chosen(self, guild_id: int, text: str) -> Subject | None:
        """A member known only by their recorded choice (an opt-out purged the rest)."""
        user_id = parse_member_id(text)
        if user_id is not None:
            found = await consent_of(self.pool, guild_id, user_id)
            return Subject(guild_id, user_id, None) if found is not None else None
        ids = await consented_by_name(self.pool, guild_id, text)
        if len(ids) > 1:
            shown = ", ".join(str(user_id) for user_id in ids)
            raise AmbiguousMember(
                f"{text.strip()!r} was the name of {len(ids)} members who opted out ({shown});"
                " pass the id",
                tuple(Member(guild_id, user_id) for user_id in ids),
            )
        return Subject(guild_id, ids[0], None) if ids else None

    async def subject_or_id(self, guild_id: int, text: str, *, typed: bool = False) -> Subject:
        """`subject`, but a bare id (or mention) the bot has never seen is fine too: an operator
        can honour an objection before an import brings the member in. `typed`: the id was
        typed by an admin, so one Discord could never give (`0`) is refused as unknown."""
        try:
            return await self.subject(guild_id, text)
        except UnknownMember as exc:
            user_id = parse_member_id(text)
            if user_id is None:
                raise
            if typed and user_id < MIN_DISCORD_ID:
                raise UnknownMember(
                    f"{exc}, and {user_id} cannot be a Discord user id; give the member's"
                    " id (Copy User ID) or a name"
                ) from None
            return Subject(guild_id, user_id, None)

    async def export(self, subject: Subject) -> dict[str, Any]:
        await self.flush_writes()
        document = await export_member(
            self.pool, subject, clock=self.clock, telemetry=self.telemetry
        )
        consent = await consent_of(self.pool, subject.guild_id, subject.user_id)
        document["opted_out"] = consent is not None and consent.state == "out"
        return document

    async def consent(self, guild_id: int, user_id: int) -> Consent | None:
        """The member's recorded choice (None: never chose)."""
        if self.read_consent is not None:
            return await self.read_consent(guild_id, user_id)
        return await consent_of(self.pool, guild_id, user_id)

    async def opt_out(
        self, subject: Subject, *, actor_id: int | None, by_admin: bool, wait: bool = False
    ) -> PurgeReport:
        """Stop storing the member and delete what is held, as `user purge` does. The choice is
        recorded first, so every write from then on (live, backfill, import, another process)
        is refused in the database; the writer is drained and the purge runs; a last sweep
        takes any message a write already in flight stored."""
        guild_id, user_id = subject.guild_id, subject.user_id
        names = subject.member.names if subject.member is not None else ()
        await record_consent(
            self.pool,
            guild_id,
            user_id,
            "out",
            changed_by=actor_id,
            by_admin=by_admin,
            name_keys=[name_key(guild_id, name) for name in names],
        )
        report = await self.purge(subject, actor_id=actor_id, wait=wait)
        await self.flush_writes()
        swept = await delete_messages_of(self.pool, guild_id, user_id)
        if swept:
            _log.info("opt-out of %s/%s swept %d late message(s)", guild_id, user_id, swept)
            await self.events.publish(MemberPurged(guild_id, user_id))
        self.telemetry.emit(
            "privacy_optout", guild_id=guild_id, user_id=user_id, actor_id=actor_id, count=swept
        )
        return report

    async def unconsented(self, guild_id: int) -> list[int]:
        """Members held who never opted in (what `storage = opted-in` would keep out)."""
        return await unconsented_members(self.pool, guild_id)

    async def purge_unconsented(
        self, guild_id: int, *, actor_id: int | None, only: list[int] | None = None
    ) -> int:
        """Purge every member held who never opted in (of `only`, when given: the ones an admin
        was shown; one who opted in since is kept); how many were purged."""
        purged = 0
        for user_id in await self.unconsented(guild_id):
            if only is not None and user_id not in only:
                continue
            # By id, with the names they are known by: others' notes naming them go too.
            subject = await self.subject_or_id(guild_id, str(user_id))
            await self.purge(subject, actor_id=actor_id, wait=False)
            purged += 1
        return purged

    async def opt_in(
        self, guild_id: int, user_id: int, *, actor_id: int | None, by_admin: bool
    ) -> None:
        """Store the member (again) from now on; nothing earlier comes back."""
        await record_consent(
            self.pool, guild_id, user_id, "in", changed_by=actor_id, by_admin=by_admin
        )
        await self.events.publish(MemberChanged(guild_id, user_id))
        await self.events.publish(MemberBack(guild_id, user_id))
        self.telemetry.emit("privacy_optin", guild_id=guild_id, user_id=user_id, actor_id=actor_id)

    async def preview(self, subject: Subject) -> dict[str, Any]:
        """What a purge would delete (the export document, without writing anything)."""
        await self.flush_writes()
        return await purge_preview(self.pool, subject)

    async def purge(
        self, subject: Subject, *, actor_id: int | None = None, wait: bool = True
    ) -> PurgeReport:
        """Delete everything about the member. Shared days are re-summarised now (`wait`) or
        in the background (an interaction must answer quickly)."""
        await self.flush_writes()
        report = await purge_member(
            self.pool,
            subject,
            default_timezone=self.default_timezone,
            actor_id=actor_id,
            telemetry=self.telemetry,
        )
        await self.events.publish(MemberPurged(subject.guild_id, subject.user_id))
        for user_id in (subject.user_id, *report.counts.others_invalidated):
            await self.events.publish(MemberChanged(subject.guild_id, user_id))
        await self.events.publish(MemberGone(subject.guild_id, subject.user_id))
        days = list(report.counts.stale_days)
        if wait:
            report.resummarized.extend(await self._resummarize(subject.guild_id, days))
        elif days:
            task = asyncio.create_task(self._resummarize(subject.guild_id, days))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return report

    async def _resummarize(self, guild_id: int, days: list[date]) -> list[date]:
        """The days re-summarised; a failed day stays stale and is redone when next used."""
        done = []
        for day in days:
            try:
                await self.resummarize(guild_id, day)
            except Exception:
                _log.exception("re-summarising %s of guild %s after a purge failed", day, guild_id)
                continue
            done.append(day)
        return done

    async def aclose(self) -> None:
        """Cancel re-summaries still running (the days stay stale and are redone on use)."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


ATTACHED = "Everything, as JSON, is attached (the same document as `user export`)."


def describe_mine(
    document: dict[str, Any],
    *,
    optout_command: str = "/memory optout",
    where: str = ATTACHED,
) -> str:
    """What `/memory mine` says in words about an export document (`optout_command`: how this
    front end spells opting out, `/optout` in the console; `where`: where the whole document
    is, attached on Discord, a file in the console)."""
    facts = (document.get("facts") or {}).get("blob") or ""
    messages = document.get("messages") or []
    days = sorted(
        {row["day"] for row in document.get("daily_summaries") or [] if row.get("summary")}
    )
    lines = [
        "You are not remembered here (you opted out)."
        if document.get("opted_out")
        else f"You are remembered here (use {optout_command} to stop that).",
        f"Facts I was told about you: {facts}" if facts else "Facts I was told about you: none.",
        _learned_line(document),
    ]
    if messages:
        first = min(str(row["created_at"]) for row in messages)[:10]
        lines.append(f"Messages of yours I keep: {len(messages)}, since {first}.")
    else:
        lines.append("Messages of yours I keep: none.")
    if days:
        shown = ", ".join(str(day) for day in days[-7:])
        lines.append(f"Day summaries that mention you: {len(days)} (latest: {shown}).")
    else:
        lines.append("Day summaries that mention you: none.")
    lines.append(where)
    return "\n".join(lines)


def _learned_line(document: dict[str, Any]) -> str:
    """The facts chat taught about the member (current ones), counted and shown."""
    held = (document.get("other_tables") or {}).get("learned_facts") or []
    learned = [row for row in held if row.get("current")]
    if not learned:
        return "Facts I learned from chat about you: none."
    shown = "; ".join(str(row["statement"]).rstrip(".") for row in learned[:5])
    more = f"; and {len(learned) - 5} more" if len(learned) > 5 else ""
    return f"Facts I learned from chat about you: {len(learned)} ({shown}{more})."
