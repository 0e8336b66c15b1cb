"""DiscordChatExporter-shaped exports for import tests (the shape of DCE 2.4x JSON output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GUILD_ID = 700000000000000001
CHANNEL_ID = 700000000000000002
ALICE: dict[str, Any] = {
    "id": "700000000000000011",
    "name": "alice",
    "discriminator": "0000",
    "nickname": "Alice W",
    "color": None,
    "isBot": False,
    "roles": [],
    "avatarUrl": "https://cdn.discordapp.com/embed/avatars/0.png",
}
BOB = {**ALICE, "id": "700000000000000012", "name": "bob", "nickname": "bob"}
HELPER_BOT = {
    **ALICE,
    "id": "700000000000000013",
    "name": "helper",
    "nickname": "Helper",
    "isBot": True,
}


def message(
    message_id: int,
    content: str,
    *,
    author: dict[str, Any] = ALICE,
    kind: str = "Default",
    minute: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(message_id),
        "type": kind,
        "timestamp": f"2025-03-01T10:{minute:02d}:00.123+01:00",
        "timestampEdited": None,
        "callEndedTimestamp": None,
        "isPinned": False,
        "content": content,
        "author": author,
        "attachments": [],
        "embeds": [],
        "stickers": [],
        "reactions": [],
        "mentions": [],
        "inlineEmojis": [],
    }
    data.update(extra)
    return data


def export(messages: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "guild": {"id": str(GUILD_ID), "name": "Café ☕", "iconUrl": "x.png"},
        "channel": {
            "id": str(CHANNEL_ID),
            "type": "GuildTextChat",
            "categoryId": "1",
            "category": "Text",
            "name": "général",
            "topic": None,
        },
        "dateRange": {"after": None, "before": None},
        "exportedAt": "2025-03-02T00:00:00+00:00",
        "messages": messages,
        "messageCount": len(messages),
    }
    data.update(overrides)
    return data


def sample_messages() -> list[dict[str, Any]]:
    return [
        message(1001, "Привет! 👋 שלום </content> & <b>", minute=0),
        message(
            1002,
            "",
            author=BOB,
            kind="Reply",
            minute=1,
            reference={"messageId": "1001", "channelId": str(CHANNEL_ID), "guildId": str(GUILD_ID)},
            attachments=[
                {"id": "5", "url": "https://cdn/cat.png", "fileName": "cat.png", "fileSizeBytes": 9}
            ],
            mentions=[ALICE],
        ),
        message(1003, "beep boop", author=HELPER_BOT, minute=2),
        message(1004, "", author=BOB, kind="GuildMemberJoin", minute=3),
        message(
            1005,
            "see https://example.com/x",
            minute=4,
            timestampEdited="2025-03-01T10:05:00+01:00",
            embeds=[{"title": "Example", "url": "https://example.com/x"}],
            stickers=[{"id": "9", "name": "Wave", "format": "Png", "sourceUrl": "s"}],
        ),
    ]


def write(path: Path, data: dict[str, Any], *, indent: int | None = 2) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path
