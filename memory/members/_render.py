"""Stored messages to prompt messages: ids become names only here, right before an LLM call.

Storage keeps author ids and raw `<@123>` mentions, so a renamed member is shown under their
current name in every later summary.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from memory.core.models import ChatMessage, Member
from memory.llm import PromptMember, PromptMessage

_log = logging.getLogger(__name__)

# Any user mention, whatever the id length (tests and imports use short ids too).
USER_MENTION = re.compile(r"<@!?(\d+)>")


def display_name(user_id: int, members: Mapping[int, Member]) -> str:
    member = members.get(user_id)
    return member.display_name if member else f"user {user_id}"


def distinct_names(members: Mapping[int, Member]) -> dict[int, Member]:
    """The members with display names unique in one prompt: a later member (by id) whose name
    is taken shows with their username, `Alex (alex_92)` (or `Alex (2)` when that does not
    tell them apart), so a transcript never shows two people under one name and an answer
    naming one of them is unambiguous."""
    taken: set[str] = set()
    distinct: dict[int, Member] = {}
    for user_id in sorted(members):
        member = members[user_id]
        base, name, copy = member.display_name, member.display_name, 1
        username = member.username or ""
        if name.casefold() in taken and username.casefold() not in ("", base.casefold()):
            name = f"{base} ({member.username})"
        while name.casefold() in taken:
            copy += 1
            name = f"{base} ({copy})"
        taken.add(name.casefold())
        distinct[user_id] = member if name == base else replace(member, nickname=name)
    return distinct


def prompt_member(user_id: int, members: Mapping[int, Member]) -> PromptMember:
    """A member as prompts see them: id, current name and the other names they answer to."""
    member = members.get(user_id)
    if member is None:
        return PromptMember(user_id=user_id, name=f"user {user_id}")
    name = member.display_name
    return PromptMember(
        user_id=user_id, name=name, aliases=[alias for alias in member.names if alias != name]
    )


def render_mentions(text: str, members: Mapping[int, Member]) -> str:
    """`<@123>` and `<@!123>` become `@Name` (unknown ids get a neutral "@user 123")."""
    return USER_MENTION.sub(lambda m: "@" + display_name(int(m.group(1)), members), text)


def referenced_ids(messages: Iterable[ChatMessage]) -> set[int]:
    """Every user id a batch of messages needs a name for: authors and mentioned members."""
    ids: set[int] = set()
    for message in messages:
        ids.add(message.author_id)
        ids.update(message.mention_ids)
        ids.update(int(match) for match in USER_MENTION.findall(message.content))
    return ids


def render_messages(
    messages: Iterable[ChatMessage], members: Mapping[int, Member]
) -> list[PromptMessage]:
    """Prompt-ready messages in the given order; deleted messages are skipped (privacy)."""
    rendered: list[PromptMessage] = []
    for message in messages:
        if message.deleted:
            continue
        rendered.append(
            PromptMessage(
                message_id=message.message_id,
                reply_to_id=message.reply_to_id,
                timestamp=message.created_at,
                author_id=message.author_id,
                author_name=display_name(message.author_id, members),
                content=render_mentions(message.content, members),
            )
        )
    return rendered
