"""Reading one DiscordChatExporter message entry: ids, people, times and text, checked.

A problem raises `ExportFormatError` naming the field; the importer leaves that message out
and names it (`bad_row`), so one bad entry never costs the file's clean ones.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.core.clock import ensure_aware
from memory.core.models import ChatMessage, Member
from memory.core.surrogates import (
    attachment_surrogate,
    clean_name,
    compose_content,
    embed_is_link_preview,
    embed_surrogate,
    sticker_surrogate,
)

# Conversation; joins, pins, calls, thread notices and the like are not imported.
CONVERSATION_TYPES = frozenset({"Default", "Reply"})
MAX_ID = 2**63 - 1  # ids are PostgreSQL bigint


class ExportFormatError(ValueError):
    """The file is not a usable export; the message says what is wrong and where."""


def snowflake(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    else:
        raise ExportFormatError(f"{what} is not an id: {_shown(value)}")
    if number > MAX_ID:
        raise ExportFormatError(f"{what} is out of range for an id: {number}")
    return number


def _shown(value: Any) -> str:
    """A bad value for an error message: short, and printable whatever it holds."""
    text = clean_name(value) if isinstance(value, str) else repr(value)
    return repr((text or "")[:40])


def _time(value: Any, what: str) -> datetime:
    if not isinstance(value, str):
        raise ExportFormatError(f"{what} is missing or not a timestamp")
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return ensure_aware(datetime.fromisoformat(text))
    except ValueError:
        raise ExportFormatError(f"{what} is not an ISO timestamp: {value!r}") from None


def _person(raw: Any, guild_id: int, what: str) -> Member:
    if not isinstance(raw, dict):
        raise ExportFormatError(f"{what} is missing")
    name = clean_name(raw["name"]) if isinstance(raw.get("name"), str) else None
    nickname = clean_name(raw["nickname"]) if isinstance(raw.get("nickname"), str) else None
    return Member(
        guild_id=guild_id,
        user_id=snowflake(raw.get("id"), f"{what}.id"),
        username=name,
        # the export's "nickname" is the guild display name; it equals the username when unset
        nickname=nickname if nickname and nickname != name else None,
        is_bot=bool(raw.get("isBot", False)),
    )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _list(raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key) or []
    if not isinstance(value, list):
        raise ExportFormatError(f"{key!r} is not a list")
    return value


def parse_message(
    raw: Any, *, guild_id: int, channel_id: int, max_chars: int
) -> tuple[ChatMessage | None, list[Member]]:
    """One export entry -> (message, or None for non-conversation; people it names)."""
    if not isinstance(raw, dict):
        raise ExportFormatError("a message is not an object")
    message_id = snowflake(raw.get("id"), "id")
    try:
        author = _person(raw.get("author"), guild_id, "author")
        mentioned = [
            _person(m, guild_id, "mention") for m in _list(raw, "mentions") if isinstance(m, dict)
        ]
        created_at = _time(raw.get("timestamp"), "timestamp")
        edited_raw = raw.get("timestampEdited")
        edited_at = _time(edited_raw, "timestampEdited") if edited_raw else None
        content = raw.get("content") or ""
        if not isinstance(content, str):
            raise ExportFormatError("content is not text")
        if raw.get("type", "Default") not in CONVERSATION_TYPES:
            return None, [author, *mentioned]
        surrogates: list[str | None] = [
            attachment_surrogate(
                str(a.get("fileName") or a.get("url") or "file"),
                description=_text_or_none(a.get("description")),
            )
            for a in _list(raw, "attachments")
            if isinstance(a, dict)
        ]
        for embed in _list(raw, "embeds"):
            if isinstance(embed, dict) and not embed_is_link_preview(embed.get("url"), content):
                surrogates.append(
                    embed_surrogate(
                        title=embed.get("title"),
                        description=embed.get("description"),
                        url=embed.get("url"),
                    )
                )
        surrogates += [
            sticker_surrogate(str(s.get("name") or "sticker"))
            for s in _list(raw, "stickers")
            if isinstance(s, dict)
        ]
        reference = raw.get("reference") or {}
        reply_to = reference.get("messageId") if isinstance(reference, dict) else None
    except ExportFormatError as exc:
        raise ExportFormatError(f"message {message_id}: {exc}") from None
    message = ChatMessage(
        message_id=message_id,
        guild_id=guild_id,
        channel_id=channel_id,
        author_id=author.user_id,
        content=compose_content(content, surrogates, max_chars=max_chars),
        created_at=created_at,
        reply_to_id=snowflake(reply_to, "reference.messageId") if reply_to else None,
        mention_ids=tuple(dict.fromkeys(m.user_id for m in mentioned)),
        author_is_bot=author.is_bot,
        edited_at=edited_at,
    )
    return message, [author, *mentioned]


def bad_row(raw: Any, index: int, exc: ExportFormatError) -> tuple[str, str]:
    """(the message's id as the file has it, or its position; the reason) of a bad message."""
    ident = raw.get("id") if isinstance(raw, dict) else None
    label = _shown(ident).strip("'\"") if ident not in (None, "") else f"#{index}"
    reason = str(exc)
    prefix = f"message {label}: "
    return label, reason[len(prefix) :] if reason.startswith(prefix) else reason
