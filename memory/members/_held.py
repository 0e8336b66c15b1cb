"""What the reply path reads about members on every reply, kept for a minute: consent and the
guild's forgotten statements.

A burst of 100 replies read each member's consent twice (may the bot answer, may memory be
used) and the guild's forgotten statements once per member context and once per episode text:
about 450 of its 1,450 queries, for rows that change a few times a day. A change drops them at
once, in every process (`CrossProcessCaches`: an opt-out or opt-in, a forget, a rename, a
guild's storage mode); a reconnect drops everything held. Concurrent misses share one read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import asyncpg

from db.consent import (
    Consent,
    consent_and_remembered,
    guild_consents,
    is_remembered,
    remembered,
)
from db.members import get_members
from db.summaries import forgotten_in_guild
from memory.core.cache import AsyncCache
from memory.core.events import MembersSeen
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.members._directory import MemberDirectory, renames

# How long a member's row, consent and a guild's forgotten statements are kept (a change drops
# them at once; another process's rename shows within it).
HELD_SECONDS = 60.0
# A guild's recorded choices are read whole (one query for all its members) up to this many;
# a guild where more members chose is read member by member.
GUILD_CHOICES = 1_000


@dataclass(frozen=True, slots=True)
class _Choice:
    """A member's consent as held: `consent` None means the member never chose."""

    consent: Consent | None
    remembered: bool


class MemberConsent:
    """Members' recorded choices and whether memory may be used for them, kept a minute.

    Held by guild: most members never chose, so one read of a guild's few choices (and its
    storage mode) answers for all its members; a fleet's chatter then costs a read per guild
    a minute, not one per member (the fleet bench, issue 46). A guild where more than
    GUILD_CHOICES members chose is held member by member."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        telemetry: Telemetry,
        cache_seconds: float = HELD_SECONDS,
        cache_size: int = 50_000,
        guild_choices: int = GUILD_CHOICES,
    ) -> None:
        self._pool = pool
        self._guild_choices = guild_choices
        self._guilds: AsyncCache[int, _GuildChoices] = AsyncCache.ttl(
            "consent_guild", cache_size, cache_seconds, telemetry=telemetry
        )
        self._choices: AsyncCache[tuple[int, int], _Choice] = AsyncCache.ttl(
            "consent", cache_size, cache_seconds, telemetry=telemetry
        )

    async def consent(self, guild_id: int, user_id: int) -> Consent | None:
        """The member's recorded choice (None: never chose)."""
        return (await self._choice(guild_id, user_id)).consent

    async def remembered(self, guild_id: int, user_id: int) -> bool:
        """Whether memory may be built and used for the member (not opted out, and opted in
        where the guild stores only members who opted in)."""
        return (await self._choice(guild_id, user_id)).remembered

    async def _choice(self, guild_id: int, user_id: int) -> _Choice:
        async def read_guild() -> _GuildChoices:
            return _GuildChoices(await guild_consents(self._pool, guild_id, self._guild_choices))

        held, _ = await self._guilds.get_or_compute(guild_id, read_guild, guild_id=guild_id)
        if held.whole is not None:
            storage, chose = held.whole
            consent = chose.get(user_id)
            return _Choice(consent, remembered(storage, consent))

        async def read() -> _Choice:
            return _Choice(*await consent_and_remembered(self._pool, guild_id, user_id))

        choice, _ = await self._choices.get_or_compute((guild_id, user_id), read, guild_id=guild_id)
        return choice

    def forget(self, guild_id: int, user_id: int | None = None) -> None:
        """Drop what is held of a member (or of every member of the guild): it changed."""
        self._guilds.invalidate(lambda key: key == guild_id)
        self._choices.invalidate(
            lambda key: key[0] == guild_id and (user_id is None or key[1] == user_id)
        )

    def forget_all(self) -> None:
        self._guilds.invalidate(lambda key: True)
        self._choices.invalidate(lambda key: True)


@dataclass(frozen=True, slots=True)
class _GuildChoices:
    """A guild's storage mode and recorded choices, or None: too many to hold whole."""

    whole: tuple[str, dict[int, Consent]] | None


class ForgottenStatements:
    """Every guild's forgotten statements by member (with the member's names), kept a minute."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        telemetry: Telemetry,
        cache_seconds: float = HELD_SECONDS,
        cache_size: int = 10_000,
    ) -> None:
        self._pool = pool
        self._guilds: AsyncCache[int, list[tuple[Member, list[str]]]] = AsyncCache.ttl(
            "forgotten", cache_size, cache_seconds, telemetry=telemetry
        )

    async def in_guild(self, guild_id: int) -> list[tuple[Member, list[str]]]:
        """As `db.summaries.forgotten_in_guild`; callers must not change what they get."""
        rows, _ = await self._guilds.get_or_compute(
            guild_id, lambda: forgotten_in_guild(self._pool, guild_id), guild_id=guild_id
        )
        return rows

    def forget(self, guild_id: int, user_id: int | None = None) -> None:
        """The guild's statements changed (a forget), or a member's names did: read again."""
        self._guilds.invalidate(lambda key: key == guild_id)

    def forget_all(self) -> None:
        self._guilds.invalidate(lambda key: True)

    def seen(self, sightings: Iterable[tuple[Member, bool]]) -> None:
        """The writer stored these sightings: a guild whose forgotten statements are held
        with a member's old names is read again (a restated statement names the new one)."""
        for member, nickname_known in sightings:
            held = self._guilds.peek(member.guild_id)
            if held and any(
                about.user_id == member.user_id and renames(about, member, nickname_known)
                for about, _ in held
            ):
                self.forget(member.guild_id)


# A guild's forgotten statements by member, with their names (`forgotten_in_guild`'s rows).
ReadForgotten = Callable[[int], Awaitable[list[tuple[Member, list[str]]]]]


@dataclass(frozen=True, slots=True)
class MemberReads:
    """How memory building reads members: through what the reply path holds, or (tools,
    tests) straight from the database."""

    members: Callable[[int, Sequence[int]], Awaitable[dict[int, Member]]]
    remembered: Callable[[int, int], Awaitable[bool]]
    forgotten: ReadForgotten

    @classmethod
    def direct(cls, pool: asyncpg.Pool) -> MemberReads:
        return cls(
            members=lambda guild_id, user_ids: get_members(pool, guild_id, user_ids),
            remembered=lambda guild_id, user_id: is_remembered(pool, guild_id, user_id),
            forgotten=lambda guild_id: forgotten_in_guild(pool, guild_id),
        )

    @classmethod
    def held(
        cls, directory: MemberDirectory, consent: MemberConsent, forgotten: ForgottenStatements
    ) -> MemberReads:
        return cls(
            members=directory.get, remembered=consent.remembered, forgotten=forgotten.in_guild
        )


@dataclass(frozen=True, slots=True)
class HeldMembers:
    """Everything the reply path holds about members: their rows, consent and forgotten
    statements (each kept a minute, each dropped by `CrossProcessCaches` on a change)."""

    directory: MemberDirectory
    consent: MemberConsent
    forgotten: ForgottenStatements

    @classmethod
    def open(cls, pool: asyncpg.Pool, *, telemetry: Telemetry) -> HeldMembers:
        return cls(
            MemberDirectory(pool, cache_seconds=HELD_SECONDS),
            MemberConsent(pool, telemetry=telemetry),
            ForgottenStatements(pool, telemetry=telemetry),
        )

    def parts(self) -> tuple[MemberDirectory, MemberConsent, ForgottenStatements]:
        return self.directory, self.consent, self.forgotten

    def seen(self, stored: MembersSeen) -> None:
        """The writer stored these sightings: a rename shows at once in this process."""
        seen = list(stored.seen)
        self.directory.seen(seen)
        self.forgotten.seen(seen)

    def reads(self) -> MemberReads:
        return MemberReads.held(self.directory, self.consent, self.forgotten)
