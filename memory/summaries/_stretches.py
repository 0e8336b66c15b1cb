"""Which members a message concerns, whom a pass takes notes about, and cutting a stretch of
chat into prompt-sized runs."""

from __future__ import annotations

from memory.core.models import ChatMessage, Member
from memory.members import USER_MENTION


def involved_ids(message: ChatMessage, authors: dict[int, int]) -> list[int]:
    """Everyone a message concerns: its author, the members it mentions, the author of the
    message it replies to (`authors`: message id -> author id)."""
    ids = [message.author_id, *message.mention_ids]
    ids += [int(match) for match in USER_MENTION.findall(message.content)]
    if message.reply_to_id is not None and message.reply_to_id in authors:
        ids.append(authors[message.reply_to_id])
    return ids


def note_targets(messages: list[ChatMessage], members: dict[int, Member]) -> dict[int, None]:
    """Whom a pass takes notes about, in order: everyone the messages concern but bots and
    mentions of people nothing is known about."""
    authors = {message.message_id: message.author_id for message in messages}
    wanted: dict[int, None] = {}
    for message in messages:
        for user_id in involved_ids(message, authors):
            member = members.get(user_id)
            if member is not None and member.is_bot:
                continue
            if member is None and user_id != message.author_id:
                continue  # a mention of someone we know nothing about
            if user_id == message.author_id and message.author_is_bot:
                continue
            wanted.setdefault(user_id, None)
    return wanted


def split_stretch(
    messages: list[ChatMessage],
    line_sizes: list[int],
    budget: int,
    *,
    involved: list[list[int]] | None = None,
    legend_sizes: dict[int, int] | None = None,
) -> list[list[ChatMessage]]:
    """Consecutive runs of messages whose prompt fits `budget` characters: each message's
    transcript line plus, once per run, the legend line of every member it involves. A run
    never splits messages sent in the same instant (a pass boundary is a time)."""
    legend = legend_sizes or {}
    runs: list[list[ChatMessage]] = []
    current: list[ChatMessage] = []
    present: set[int] = set()
    used = 0
    for index, (message, size) in enumerate(zip(messages, line_sizes, strict=True)):
        ids = set(involved[index]) if involved else set()
        cost = size + sum(legend.get(uid, 0) for uid in ids - present)
        same_instant = current and current[-1].created_at == message.created_at
        if current and used + cost > budget and not same_instant:
            runs.append(current)
            current, present, used = [], set(), 0
            cost = size + sum(legend.get(uid, 0) for uid in ids)
        current.append(message)
        present |= ids
        used += cost
    if current:
        runs.append(current)
    return runs
