"""Prompt fragments shared by the memory tasks: constraints, member lists, notes per member,
and reading a batched answer back into user id -> text."""

from __future__ import annotations

import logging
from typing import TypeVar

from pydantic import BaseModel

from memory.llm._schemas import (
    DailySummaries,
    PromptMember,
    PromptMessage,
)
from prompts.loader import Raw, element, escape_body, join

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


def forgotten_constraints(forgotten: list[str]) -> Raw:
    """Statements a member asked to forget, as a prompt constraint block."""
    if not forgotten:
        return Raw("")
    items = join([element("never_mention", statement) for statement in forgotten])
    return Raw("These statements were deliberately forgotten; never include them:\n" + items)


def message_elements(messages: list[PromptMessage]) -> Raw:
    return join(
        [
            element(
                "message",
                message.content,
                id=message.message_id,
                reply_to=message.reply_to_id,
                timestamp=message.timestamp.isoformat(timespec="seconds"),
                author_id=message.author_id,
                author=message.author_name,
            )
            for message in messages
        ]
    )


def member_elements(members: list[PromptMember]) -> Raw:
    return join(
        [
            element(
                "member",
                member.name,
                id=member.user_id,
                aliases=", ".join(member.aliases) or None,
            )
            for member in members
        ]
    )


def member_keys(members: list[PromptMember]) -> list[str]:
    """Short handles for the members of one prompt (`m1`, `m2`, ...), in order: an 18-digit
    id costs a model about six tokens each time it is read or written, a handle one or two."""
    return [f"m{index}" for index in range(1, len(members) + 1)]


def resolve_member(raw: str, members: list[PromptMember]) -> int | None:
    """The user id an answer names: a handle of `member_keys`, or the id itself."""
    text = str(raw).strip().strip("<@!>")
    for key, member in zip(member_keys(members), members, strict=True):
        if text == key:
            return member.user_id
    try:
        return int(text)
    except ValueError:
        return None


def keyed_inputs(members: list[PromptMember]) -> list[dict[str, object]]:
    """The members as task inputs, each with the handle the prompt shows for it."""
    return [
        {**member.model_dump(mode="json"), "key": key}
        for key, member in zip(member_keys(members), members, strict=True)
    ]


def reduce_elements(members: list[PromptMember], parts: dict[int, list[str]]) -> Raw:
    """Each member with their notes in day order, one `- note` line each (the member's
    handle once, as an attribute, because the answer must name it)."""
    return join(
        [
            element(
                "member",
                Raw(
                    "\n".join(
                        "- " + escape_body(text.replace("\n", " "))
                        for text in parts.get(member.user_id, [])
                    )
                ),
                id=key,
                name=member.name,
            )
            for key, member in zip(member_keys(members), members, strict=True)
        ]
    )


def by_member(
    result: DailySummaries, members: list[PromptMember], max_chars: int
) -> dict[int, str]:
    """user id -> summary for exactly the members asked about ('' when the model skipped one;
    ids it made up are ignored). Answers name members by handle (or by id)."""
    wanted = {member.user_id for member in members}
    summaries: dict[int, str] = {user_id: "" for user_id in wanted}
    for item in result.summaries:
        user_id = resolve_member(item.user_id, members)
        if user_id is None:
            _log.warning("daily summary for unknown id %r ignored", item.user_id)
            continue
        if user_id in wanted:
            summaries[user_id] = item.summary.strip()[: max_chars * 2]
    return summaries
