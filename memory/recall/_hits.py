"""What a search returns: hits as the reply prompt, /recall and the CLI show them, and the
helpers that turn database rows into them (time zone, names, forgotten statements, fusion)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from db.recall import MessageMatch, SummaryMatch
from memory.core.models import Member
from memory.language import day_label, drop_restating, resolve_dates, restates_any
from memory.recall._exchange import asks
from memory.recall._hybrid import fuse


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One thing found: a message (with what a jump link needs) or a day summary. `at` is in
    the guild's time zone; `context` holds the rest of its exchange (the turn it answers, the
    turns answering it) in the order said; `dates` resolves its relative dates ("yesterday =
    Sun 2023-05-07")."""

    kind: str  # "message" or "summary"
    at: datetime | None
    day: str
    author_id: int
    author_name: str
    text: str
    rank: float
    channel_id: int | None = None
    message_id: int | None = None
    channel_name: str | None = None
    dates: tuple[str, ...] = ()
    context: tuple[RecallHit, ...] = ()
    side: str = "match"  # "before" / "after" for a line of another hit's context
    # A context line's need (memory/recall/_exchange.py): 0 another match merged into this
    # hit, 1 the nearest line of a neighbouring turn, 2 the rest of the exchange.
    tier: int = 0

    def jump_url(self, guild_id: int) -> str | None:
        if self.message_id is None or self.channel_id is None:
            return None
        return f"https://discord.com/channels/{guild_id}/{self.channel_id}/{self.message_id}"

    @property
    def day_label(self) -> str:
        """`Thu 2023-07-06`: the day it was said (or summarised), with its weekday."""
        return day_label(self.at.date() if self.at else date.fromisoformat(self.day))


class Forgetting:
    """Statements forgotten in the guild, about any member: a message restating one is never
    recalled, a summary loses the sentences that do."""

    def __init__(self, forgotten: dict[int, list[str]], members: dict[int, Member]) -> None:
        self._by_member = [
            (statements, tuple(members[uid].names) if uid in members else ())
            for uid, statements in forgotten.items()
        ]

    def drops(self, text: str) -> bool:
        return any(restates_any(text, said, names=names) for said, names in self._by_member)

    def cleaned(self, text: str) -> str:
        for statements, names in self._by_member:
            text, _ = drop_restating(text, statements, names=names)
        return text.strip()


def merged(first: list[Any], second: list[Any], *, key: Callable[[Any], Hashable]) -> list[Any]:
    """Two result lists of one lane as one, best rank first, each row once."""
    seen = {key(row) for row in first}
    rows = first + [row for row in second if key(row) not in seen]
    return sorted(rows, key=lambda row: -row.rank)


def distinct(messages: Iterable[MessageMatch]) -> list[MessageMatch]:
    """Each member's line once: "the weather is awful again" said on ten days is one hit (the best
    ranked), not ten that push out everything else."""
    seen: set[tuple[int, str]] = set()
    kept = []
    for message in messages:
        key = (message.author_id, " ".join(message.content.lower().split()))
        if key not in seen:
            seen.add(key)
            kept.append(message)
    return kept


def named_first(
    matches: list[MessageMatch], named: tuple[int, ...], after: int | None
) -> list[MessageMatch]:
    """Past the first `after` matches, the named members' own statements, then their own
    questions, then everyone else's, each in its order: "what has alice painted?" is answered
    by what alice said, not by bob's "nice painting!" (on LoCoMo-dev, 1.7% of a named member's
    later lines shown were evidence against 0.25% of the other's), and a later match is shown
    alone, where alice's "what are you painting these days?" says nothing about her (on
    LoCoMo-dev, evidence all 0.799 -> 0.804). The best matches keep their places: their
    exchanges often hold the other's question and the named member's answer."""
    if after is None or not named:
        return matches
    later = matches[after:]
    own = [m for m in later if m.author_id in named]
    statements = [m for m in own if not asks(m)]
    questions = [m for m in own if asks(m)]
    others = [m for m in later if m.author_id not in named]
    return matches[:after] + statements + questions + others


def zone_of(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def name_of(members: dict[int, Member], user_id: int) -> str:
    member = members.get(user_id)
    return member.display_name if member else f"user {user_id}"


def message_hit(
    match: MessageMatch,
    members: dict[int, Member],
    zone: ZoneInfo,
    channels: dict[int, str],
    around: Sequence[tuple[MessageMatch, int]],
    side: str = "match",
    tier: int = 0,
) -> RecallHit:
    """A match as a hit; `around`: its exchange's lines with their tiers, in any order (the
    hit holds them in the order they were said)."""
    at = match.created_at.astimezone(zone)
    context = tuple(
        message_hit(
            line,
            members,
            zone,
            channels,
            (),
            "before" if line.message_id < match.message_id else "after",
            need,
        )
        for line, need in sorted(around, key=lambda item: item[0].message_id)
    )
    return RecallHit(
        "message",
        at,
        at.date().isoformat(),
        match.author_id,
        name_of(members, match.author_id),
        match.content,
        match.rank,
        match.channel_id,
        match.message_id,
        channels.get(match.channel_id),
        tuple(resolve_dates(match.content, at.date())),
        context,
        side,
        tier,
    )


def summary_hit(match: SummaryMatch, text: str, author: str) -> RecallHit:
    return RecallHit(
        "summary", None, match.day.isoformat(), match.user_id, author, text, match.rank
    )


def fused(messages: list[MessageMatch], *similar: list[MessageMatch]) -> list[MessageMatch]:
    """The message lane ordered by reciprocal rank over the full-text and the nearest
    messages (their scores do not compare, their orders do); as it is when nothing is near."""
    lanes = [lane for lane in similar if lane]
    if not lanes:
        return messages
    by_id = {m.message_id: m for m in [*(m for lane in lanes for m in lane), *messages]}
    order = fuse([[m.message_id for m in lane] for lane in (messages, *lanes)])
    return [by_id[key] for key in order]
