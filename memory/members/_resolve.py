"""Find the member a command is about: by mention, id, nickname, username, global name or alias.

Resolution never guesses: two members answering to one name come back as candidates so the
bot can ask which one was meant, and an unknown name comes back as unknown.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass

import asyncpg

from db.members import find_by_name, get_member
from db.types import Connection
from memory.core.models import Member
from memory.language import (
    is_self_reference,
    mention_id,
    starts_in_first_person,
    subject_candidates,
)

_log = logging.getLogger(__name__)

_RAW_ID = re.compile(r"^\d{15,21}$")


@dataclass(frozen=True, slots=True)
class Resolution:
    """`member` when exactly one matched; `candidates` when several did; neither: unknown."""

    query: str
    member: Member | None = None
    candidates: tuple[Member, ...] = ()
    is_self: bool = False

    @property
    def found(self) -> bool:
        return self.member is not None

    @property
    def ambiguous(self) -> bool:
        return self.member is None and len(self.candidates) > 1


def describe(member: Member) -> str:
    """A name plus what tells it apart from namesakes: "Alice (@alice_w, id 42)"."""
    extra = []
    if member.username and member.username != member.display_name:
        extra.append(f"@{member.username}")
    extra.append(f"id {member.user_id}")
    return f"{member.display_name} ({', '.join(extra)})"


class MemberResolver:
    """Looks members up in the guild's directory (db.members)."""

    def __init__(self, db: asyncpg.Pool | Connection) -> None:
        self._db = db

    async def resolve(
        self,
        guild_id: int,
        reference: str,
        *,
        author: Member | None = None,
        known: Mapping[int, Member] | None = None,
    ) -> Resolution:
        """Resolve one reference as written. `known` holds members the adapter already has
        (e.g. the message's mentions), used when the directory has not seen them yet."""
        query = reference.strip()
        if author is not None and is_self_reference(query):
            return Resolution(query, member=author, is_self=True)
        user_id = mention_id(query)
        if user_id is None and _RAW_ID.match(query):
            user_id = int(query)
        if user_id is not None:
            return await self._by_id(guild_id, query, user_id, author=author, known=known)
        matches = await find_by_name(self._db, guild_id, query)
        if len(matches) == 1:
            member = matches[0]
            return Resolution(query, member=member, is_self=_same(member, author))
        if len(matches) > 1:
            return Resolution(query, candidates=tuple(_best_tier(matches, query)))
        return Resolution(query)

    async def resolve_subject(
        self,
        guild_id: int,
        statement: str,
        *,
        author: Member | None = None,
        known: Mapping[int, Member] | None = None,
    ) -> Resolution:
        """Resolve who a statement is about from its first words ("Big Bob's cat is ...").

        The longest prefix naming somebody wins; with no match, the first word is reported as
        the unknown name. A statement in the first person ("I'm a nurse") is about the author."""
        if author is not None and starts_in_first_person(statement):
            return Resolution(statement.split(maxsplit=1)[0], member=author, is_self=True)
        candidates = subject_candidates(statement)
        for candidate in candidates:
            resolution = await self.resolve(guild_id, candidate, author=author, known=known)
            if resolution.found or resolution.ambiguous:
                return resolution
        first = candidates[-1] if candidates else statement.strip()
        return Resolution(first)

    async def _by_id(
        self,
        guild_id: int,
        query: str,
        user_id: int,
        *,
        author: Member | None,
        known: Mapping[int, Member] | None,
    ) -> Resolution:
        if author is not None and author.user_id == user_id:
            return Resolution(query, member=author, is_self=True)
        member = await get_member(self._db, guild_id, user_id)
        if member is None and known is not None:
            member = known.get(user_id)
        if member is None and mention_id(query) is not None:
            # A mention typed in Discord always names a real user, even one we never saw talk.
            member = Member(guild_id, user_id)
        return Resolution(query, member=member) if member else Resolution(query)


def _same(member: Member, author: Member | None) -> bool:
    return author is not None and member.user_id == author.user_id


def _best_tier(matches: list[Member], query: str) -> list[Member]:
    """Several members answer to the name: keep all of them (the caller asks which), but list
    those whose current name matches before those matching only through an old alias."""
    needle = query.strip().lstrip("@").lower()

    def current(member: Member) -> bool:
        names = (member.nickname, member.global_name, member.username)
        return any(name and name.lower() == needle for name in names)

    return sorted(matches, key=lambda member: (not current(member), member.user_id))
