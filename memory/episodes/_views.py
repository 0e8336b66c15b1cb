"""Episodes as front ends show them: a value type, jump links, one-line renderings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import asyncpg

from memory.core.text import collapse, truncate


@dataclass(frozen=True, slots=True)
class Episode:
    """One episode of a channel, as stored."""

    id: int
    guild_id: int
    channel_id: int
    first_message_id: int
    last_message_id: int
    started_at: datetime
    ended_at: datetime
    message_count: int
    member_ids: tuple[int, ...]
    state: str
    title: str
    summary: str
    open_loops: tuple[str, ...]

    @classmethod
    def from_row(cls, row: asyncpg.Record) -> Episode:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            first_message_id=row["first_message_id"],
            last_message_id=row["last_message_id"],
            started_at=row["started_at"],
            ended_at=row["ended_at"],
            message_count=row["message_count"],
            member_ids=tuple(row["member_ids"]),
            state=row["state"],
            title=row["title"],
            summary=row["summary"],
            open_loops=tuple(row["open_loops"]),
        )

    @property
    def jump_url(self) -> str:
        """Discord's link to the episode's first message."""
        return (
            f"https://discord.com/channels/{self.guild_id}/{self.channel_id}/"
            f"{self.first_message_id}"
        )

    @property
    def label(self) -> str:
        """Its title, or what stands for one before it is summarised."""
        plural = "" if self.message_count == 1 else "s"
        return self.title or f"{self.message_count} message{plural} (not summarised yet)"

    def one_line(self, max_chars: int = 140) -> str:
        """The summary's first sentence-ish, cut to one line."""
        text = self.summary or (self.open_loops[0] if self.open_loops else "")
        return truncate(text, max_chars)


def local_span(episode: Episode, timezone: str) -> str:
    """`2026-11-24 14:05–15:30` in the guild's time zone."""
    zone = ZoneInfo(timezone)
    start = episode.started_at.astimezone(zone)
    end = episode.ended_at.astimezone(zone)
    tail = end.strftime("%H:%M") if end.date() == start.date() else end.strftime("%m-%d %H:%M")
    return f"{start:%Y-%m-%d %H:%M}–{tail}"


def listing_line(episode: Episode, timezone: str, channel: str) -> str:
    """One episode for `memorybot episodes` and `/memory episodes`."""
    loops = f" | open: {'; '.join(episode.open_loops)}" if episode.open_loops else ""
    summary = f" — {episode.one_line(200)}" if episode.summary else ""
    return (
        f"{local_span(episode, timezone)} {channel} [{episode.state}] {episode.label}"
        f" ({episode.message_count} msgs){summary}{loops}"
    )


def catch_up_line(episode: Episode, channel: str) -> str:
    """One line of a catch-up: channel, title, one-line summary, jump link."""
    summary = f": {episode.one_line(120)}" if episode.summary else ""
    return f"• {channel} **{episode.label}**{summary} <{episode.jump_url}>"


# The message being answered is looked for in the working memory only from this length.
ECHO_CHARS = 12


def working_memory(episode: Episode, answering: str = "") -> str:
    """The current episode as a reply prompt's working memory (plain text, escaped later).

    `answering` is the message being answered: the episode may already hold it (it was stored
    before the reply read the episode), but it is the prompt's <message>, not a memory, and
    not an open question of the episode."""
    asked = collapse(answering)
    if len(asked) < ECHO_CHARS:  # "ok", "hi": too short to tell from words in the summary
        asked = ""
    title = episode.label
    if asked and title and _quotes(title, asked):
        title = "(starting with this message)"
    parts = [f"Current topic: {title}"]
    summary = episode.summary.replace(asked, "…") if asked else episode.summary
    if summary:
        parts.append(f"So far: {summary}")
    loops = [
        loop
        for loop in episode.open_loops
        if not (asked and _quotes(loop.split(": ", 1)[-1], asked))
    ]
    if loops:
        parts.append("Open: " + "; ".join(loops))
    return "\n".join(parts)


def _quotes(said: str, asked: str) -> bool:
    """Is `said` (a title or open loop, maybe cut short, maybe with the "Bot, " the asked
    text was stripped of) the message being answered?"""
    said = said.rstrip("…").strip()
    return bool(said) and (asked[:40] in said or said in asked)
