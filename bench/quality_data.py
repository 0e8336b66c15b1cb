"""Seeded multi-session chats with planted answers, for judging what reaches a reply prompt.

    chat = generate(seed=0, members=4, sessions=20, days=120, per_kind=6)
    chat.lines / chat.sessions / chat.questions / chat.export(channel_id) / chat.ask_at
    chat.boundaries(channel_id)   # [(first id, last id)] of each session: planted episodes

A guild's members meet in sessions (a burst of messages on one day, several hours or days
from the next, in one channel by default), chatting filler around planted statements: facts
("my dog is called Biscuit"), dated events (relative: "yesterday I ran my first half
marathon", said on a known day; or absolute: "the dragon boat race is on June 14"), changes of
mind (a later session supersedes an earlier one) and hobbies told across sessions. Questions
come in four recall kinds (KINDS), each with the ids of the messages that answer it and the
words of the answer (groups of alternatives, every group must match); never-said questions
have no evidence and name a term nobody ever said. A fifth kind (DAY_KIND,
bench/quality_days.py) asks what was talked about on a day: its evidence is the day's
sessions. Sessions are exposed with their planted boundaries (first and last message, ids),
so episode segmentation can be scored on the same chats.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import quality_pools as pools
from bench.chat_export import exported_channel, exported_message
from bench.quality_days import DAY_KIND, day_questions
from bench.quality_plan import (
    CHANGE_SLOTS,
    FIRST_CHANNEL_ID,
    FIRST_MEMBER_ID,
    GUILD_ID,
    MAX_PER_KIND,
    ChatLine,
    Planner,
    Question,
    Session,
    date_words,
    schedule,
    spread_channels,
    write_sessions,
)

# The recall kinds ("all" figures are over these) and, apart, the day questions.
KINDS = ("single_fact", "when", "across_sessions", "never_said")
ALL_KINDS = (*KINDS, DAY_KIND)
__all__ = [
    "ALL_KINDS",
    "DAY_KIND",
    "KINDS",
    "MAX_PER_KIND",
    "ChatLine",
    "QualityChat",
    "Question",
    "Session",
    "date_words",
    "generate",
    "words",
]


@dataclass
class QualityChat:
    """The generated guild: members (name -> id), channels (id -> name), every line in time
    order, the sessions and the questions."""

    seed: int
    members: dict[str, int]
    channels: dict[int, str]
    lines: list[ChatLine] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    guild_id: int = GUILD_ID
    guild_name: str = "Quality Bench"

    @property
    def ask_at(self) -> datetime:
        """When the questions are asked: the morning after the last session."""
        last = max(line.at for line in self.lines).date() + timedelta(days=1)
        return datetime(last.year, last.month, last.day, 10, 0, tzinfo=UTC)

    def boundaries(self, channel_id: int) -> list[tuple[int, int]]:
        """The planted episodes of a channel in time order: (first, last) message id of each
        session, what an episode segmentation of the channel should find."""
        return [
            (session.message_ids[0], session.message_ids[-1])
            for session in sorted(self.sessions, key=lambda s: s.start)
            if session.channel_id == channel_id
        ]

    def line(self, message_id: int) -> ChatLine:
        return next(line for line in self.lines if line.message_id == message_id)

    def export(self, channel_id: int) -> dict[str, Any]:
        """The channel as a DiscordChatExporter JSON export (what `memorybot import` reads)."""
        messages = [
            exported_message(
                line.message_id,
                line.at,
                line.content,
                (line.author_id, line.author.lower(), line.author),
            )
            for line in self.lines
            if line.channel_id == channel_id
        ]
        return exported_channel(
            (self.guild_id, self.guild_name), (channel_id, self.channels[channel_id]), messages
        )


def generate(
    *,
    seed: int = 0,
    members: int = 4,
    sessions: int = 20,
    days: int = 120,
    per_kind: int = 6,
    channels: int = 1,
) -> QualityChat:
    """A chat of `members` over `sessions` sessions in `days` days, with `per_kind` questions
    of every kind (KINDS)."""
    if not 2 <= members <= len(pools.NAMES):
        raise ValueError(f"members must be 2..{len(pools.NAMES)}")
    if not 1 <= per_kind <= min(MAX_PER_KIND, members * len(CHANGE_SLOTS)):
        raise ValueError(
            f"per_kind must be 1..{MAX_PER_KIND} and at most {len(CHANGE_SLOTS)} per member"
        )
    rng = random.Random(seed)
    names = list(pools.NAMES[:members])
    planned = spread_channels(schedule(rng, names, sessions, days), max(1, channels))
    planner = Planner(rng, names, planned)
    for _ in range(per_kind):
        planner.single_fact()
        planner.when()
        planner.across_sessions()
        planner.never_said()
    written, lines, ids = write_sessions(rng, planned, planner.plants)
    chat = QualityChat(
        seed=seed,
        members={name: FIRST_MEMBER_ID + pools.NAMES.index(name) for name in names},
        channels={
            FIRST_CHANNEL_ID + n: "general" if n == 0 else f"chat-{n}"
            for n in range(max(1, channels))
        },
        lines=lines,
        sessions=written,
    )
    chat.questions = [
        Question(
            q.kind, q.asker, q.subject, q.text, tuple(ids[key] for key in keys), q.answer, q.absent
        )
        for q, keys in planner.questions
    ]
    chat.questions += day_questions(seed, names, written, per_kind)
    _check(chat)
    return chat


def words(text: str) -> list[str]:
    """Lower-case words and numbers: how the bench compares chat, answers and prompts."""
    return re.findall(r"[0-9a-zà-ÿ]+", text.lower().replace("ł", "l"))


def _check(chat: QualityChat) -> None:
    """What the questions rely on: nobody says a never-said term, and an answer word is not
    in its own question."""
    said = {word for line in chat.lines for word in words(line.content)}
    for question in chat.questions:
        assert not said & set(question.absent), question
        asked = f" {' '.join(words(question.text))} "
        for group in question.answer:
            assert all(f" {' '.join(words(alt))} " not in asked for alt in group), question
