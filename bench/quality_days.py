"""The fifth kind of quality question: "what did we talk about on <day>?" (issue 28).

A member asks what was talked about on a day the chat had sessions, by date ("on Monday,
March 6", "on 6 March"), with or without the channel (`<#id>`, as Discord sends a channel
mention). The answer is that day's episodes, not a planted statement: the question's evidence
is every message of the day's sessions in that channel, and it counts as carried when the
prompt holds, for each of those sessions, the stored episode that starts it (its summary, or
its title with the day's date) or at least half of the session's lines with something to say
(four words or more). The questions are drawn from their own random stream after the chat is
written, so the chat and the other kinds' questions are the same with or without them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bench.quality_plan import WEEKDAYS, Question, Session

DAY_KIND = "talked_on_day"
# Forms of the question; {channel} is a channel mention as Discord delivers it.
FORMS = (
    "What did we talk about in <#{channel}> on {weekday}, {month} {day}?",
    "What were we talking about on {month} {day}?",
    "what did we chat about on {weekday} {day} {month}",
)


@dataclass(frozen=True)
class StoredEpisode:
    """What the bench read back of an episode: its title, summary and first message."""

    first_message_id: int
    title: str
    summary: str


def day_questions(
    seed: int, members: Sequence[str], sessions: Sequence[Session], count: int
) -> list[Question]:
    """`count` questions about distinct channel-days that had sessions."""
    rng = random.Random(seed * 1_000_003 + 28)
    days = sorted({(session.channel_id, session.day) for session in sessions})
    questions = []
    for index, (channel_id, day) in enumerate(sorted(rng.sample(days, min(count, len(days))))):
        ids = tuple(
            message_id
            for session in sorted(sessions, key=lambda s: s.start)
            if (session.channel_id, session.day) == (channel_id, day)
            for message_id in session.message_ids
        )
        text = FORMS[index % len(FORMS)].format(
            channel=channel_id,
            weekday=WEEKDAYS[day.weekday()],
            month=day.strftime("%B"),
            day=day.day,
        )
        questions.append(Question(DAY_KIND, rng.choice(list(members)), "", text, ids))
    return questions
