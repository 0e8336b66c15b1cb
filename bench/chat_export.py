"""The DiscordChatExporter JSON that `memorybot import` reads, as the benches write it for the
chats they generate or load (bench/quality_data.py, bench/locomo_data.py,
bench/embeddings_import.py): one channel, its guild, its messages."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any


def exported_message(
    message_id: int,
    at: datetime,
    content: str,
    author: tuple[int, str, str | None],
    attachments: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """One message; `author` is (id, user name, nickname or None)."""
    author_id, name, nickname = author
    who: dict[str, Any] = {"id": str(author_id), "name": name}
    if nickname is not None:
        who["nickname"] = nickname
    return {
        "id": str(message_id),
        "type": "Default",
        "timestamp": at.isoformat(),
        "content": content,
        "author": {**who, "isBot": False},
        "attachments": list(attachments),
        "embeds": [],
        "stickers": [],
        "mentions": [],
    }


def exported_channel(
    guild: tuple[int, str], channel: tuple[int, str], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    """The export of one channel: `guild` and `channel` are (id, name)."""
    return {
        "guild": {"id": str(guild[0]), "name": guild[1]},
        "channel": {"id": str(channel[0]), "name": channel[1]},
        "messages": messages,
    }
