"""Prompt fragments shared by the memory tasks: constraints, member lists, notes per member,
and reading a batched answer back into user id -> text."""

from __future__ import annotations

import logging
from datetime import date
from typing import TypeVar

from pydantic import BaseModel

from memory.llm.tasks._schemas import (
    DailySummaries,
    PromptMember,
    PromptMessage,
)
from prompts.loader import Raw, element, escape_body, join

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


def forgotten_constraints(forgotten: list[str]) -> Raw:
    """Statements a member asked to forget, as a `<constraints>` block (with its line break),
    or nothing at all when there are none: an empty block cost every call a few tokens."""
    if not forgotten:
        return Raw("")
    items = join([element("never_mention", statement) for statement in forgotten])
    intro = "\nThese statements were deliberately forgotten; never include them:\n"
    return Raw(element("constraints", Raw(intro + items + "\n")) + "\n")


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
    """What answers name the members of one prompt by: their names as the prompt writes them
    (a model answers `Sam: note` more reliably than with a handle, and no legend is needed to
    define it). A name already taken in the prompt gets ` (2)`, ` (3)`: every key is unique."""
    keys: list[str] = []
    taken: set[str] = set()
    for member in members:
        base = " ".join(member.name.split()) or f"user {member.user_id}"
        key, copy = base, 1
        while key.casefold() in taken:
            copy += 1
            key = f"{base} ({copy})"
        taken.add(key.casefold())
        keys.append(key)
    return keys


def resolve_member(raw: str, members: list[PromptMember]) -> int | None:
    """The user id an answer names: a key of `member_keys` (any case, escaped or not), an
    alias only one of the members has, or the id itself."""
    text = " ".join(str(raw).strip().strip("<@!>").split())
    folded = text.casefold()
    for key, member in zip(member_keys(members), members, strict=True):
        if folded in (key.casefold(), escape_body(key).casefold()):
            return member.user_id
    by_alias = {m.user_id for m in members if folded in {a.casefold() for a in m.aliases}}
    if len(by_alias) == 1:
        return by_alias.pop()
    bare = _bare(text)  # a model that dropped an emoji or a dot from the name
    keys = zip(member_keys(members), members, strict=True)
    by_letters = {member.user_id for key, member in keys if _bare(key) == bare}
    if bare and len(by_letters) == 1:
        return by_letters.pop()
    try:
        return int(text)
    except ValueError:
        return None


def _bare(name: str) -> str:
    """Only the letters and digits of a name, case-folded."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


# What may follow a member's name in a `name: text` answer.
_SEPARATORS = (":", " :", " - ", " – ", " — ")


def key_spellings(members: list[PromptMember]) -> list[tuple[str, int]]:
    """Every way an answer may write a member's key (as is, XML-escaped), longest first:
    built once per answer, matched against each of its lines."""
    spellings = {
        (spelling, member.user_id)
        for key, member in zip(member_keys(members), members, strict=True)
        for spelling in (key, escape_body(key))
    }
    return sorted(spellings, key=lambda item: (-len(item[0]), item))


def split_keyed(
    line: str, members: list[PromptMember], spellings: list[tuple[str, int]] | None = None
) -> tuple[int | None, str]:
    """`name: text` -> (the member it names, text). The longest key that prefixes the line
    in any case (then `:`, or a dash a model may write instead) wins, so a name holding `: `
    still parses; else what precedes the first colon."""
    for spelling, user_id in spellings if spellings is not None else key_spellings(members):
        if line[: len(spelling)].casefold() != spelling.casefold():
            continue
        rest = line[len(spelling) :]
        for separator in _SEPARATORS:
            if rest.startswith(separator):
                return user_id, rest[len(separator) :].strip()
    head, colon, rest = line.partition(":")
    if not colon:
        return None, line.strip()
    return resolve_member(head, members), rest.strip()


def keyed_inputs(members: list[PromptMember]) -> list[dict[str, object]]:
    """The members as task inputs, each with the key (name) the prompt shows for it."""
    return [
        {**member.model_dump(mode="json"), "key": key}
        for key, member in zip(member_keys(members), members, strict=True)
    ]


def reduce_elements(members: list[PromptMember], parts: dict[int, list[str]]) -> Raw:
    """Each member with their notes in day order, one `- note` line each (the member's key
    once, as an attribute, because the answer must name it)."""
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
                name=key,
            )
            for key, member in zip(member_keys(members), members, strict=True)
        ]
    )


def day_line(day: date, text: str) -> str:
    """One day of a member's summaries as a history prompt shows it: `2026-03-08: text`."""
    return f"{day.isoformat()}: " + escape_body(text.replace("\n", " "))


def history_elements(
    members: list[PromptMember],
    days: dict[int, list[tuple[date, str]]],
    previous: dict[int, tuple[date, str]],
) -> Raw:
    """Each member of a batched history prompt: their earlier narrative (when rolled forward,
    `previous: ...`), then one line per newer day; named by key, as the answer must."""
    elements = []
    for key, member in zip(member_keys(members), members, strict=True):
        lines = [day_line(day, text) for day, text in sorted(days.get(member.user_id, []))]
        if member.user_id in previous:
            earlier = previous[member.user_id][1].replace("\n", " ")
            lines.insert(0, "previous: " + escape_body(earlier))
        elements.append(element("member", Raw("\n".join(lines)), name=key))
    return join(elements)


def by_member(
    result: DailySummaries, members: list[PromptMember], max_chars: int
) -> dict[int, str]:
    """user id -> summary for exactly the members asked about ('' when the model skipped one;
    names it made up are ignored). Answers are `name: text` lines, named by `member_keys`."""
    wanted = {member.user_id for member in members}
    summaries: dict[int, str] = {user_id: "" for user_id in wanted}
    spellings = key_spellings(members)
    for line in result.summaries:
        user_id, text = split_keyed(line, members, spellings)
        if user_id is None or user_id not in wanted:
            _log.info("summary for an unknown member ignored: %r", line[:60])
            continue
        if text:
            joined = f"{summaries[user_id]} {text}".strip()
            summaries[user_id] = joined[: max_chars * 2]
    return summaries
