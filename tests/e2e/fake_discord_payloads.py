"""The message payloads the fake Discord builds, the same for a member's message, the bot's
and an interaction's answer (see tests/e2e/fake_discord.py for the API): ids, attachments,
mentions and replies as discord.py parses them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from tests.e2e.fake_discord_host import DiscordState
from tests.e2e.fake_discord_models import FakeAttachment, FakeMember


def _mention_payload(mentioned: FakeMember) -> dict[str, Any]:
    """A mentioned member as a message lists it: the user with its guild member inside."""
    payload = mentioned.user_payload()
    payload["member"] = mentioned.member_payload(with_user=False)
    return payload


class MessagePayloads:
    """Builds message payloads from the shared state (fresh ids, the guild, the history a
    reply refers to), held by `FakeDiscord` and handed to the parts that send messages."""

    def __init__(self, state: DiscordState) -> None:
        self.state = state

    def message(
        self,
        *,
        message_id: int,
        channel_id: int,
        author: FakeMember,
        content: str,
        created_at: datetime,
        reply_to: int | None = None,
        mentions: Iterable[FakeMember] = (),
        attachments: Iterable[FakeAttachment | str] = (),
        embeds: Iterable[Mapping[str, Any]] = (),
        stickers: Iterable[str] = (),
        edited_at: datetime | None = None,
    ) -> dict[str, Any]:
        guild_id = self.state.guild.id
        attachment_payloads = [self.attachment(a) for a in attachments]
        data: dict[str, Any] = {
            "id": str(message_id),
            "type": 19 if reply_to else 0,
            "channel_id": str(channel_id),
            "guild_id": str(guild_id),
            "author": author.user_payload(),
            "member": author.member_payload(with_user=False),
            "content": content,
            "timestamp": created_at.isoformat(),
            "edited_timestamp": edited_at.isoformat() if edited_at else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [_mention_payload(m) for m in mentions],
            "mention_roles": [],
            "attachments": attachment_payloads,
            "embeds": [dict(e) for e in embeds],
            "sticker_items": [
                {"id": str(self.state.snowflake()), "name": name, "format_type": 1}
                for name in stickers
            ],
            "pinned": False,
            "flags": 0,
            "components": [],
        }
        if reply_to is not None:
            data["message_reference"] = {
                "type": 0,
                "message_id": str(reply_to),
                "channel_id": str(channel_id),
                "guild_id": str(guild_id),
            }
            referenced = self.state.history.get(channel_id, {}).get(reply_to)
            data["referenced_message"] = referenced
        return data

    def attachment(self, attachment: FakeAttachment | str) -> dict[str, Any]:
        """An attachment of a message (a bare string is a file name), with a fresh id."""
        if isinstance(attachment, str):
            attachment = FakeAttachment(attachment)
        attachment_id = self.state.snowflake()
        url = f"{self.state.base_url}/attachments/{attachment_id}/{attachment.filename}"
        data: dict[str, Any] = {
            "id": str(attachment_id),
            "filename": attachment.filename,
            "size": attachment.size,
            "url": url,
            "proxy_url": url,
        }
        if attachment.content_type:
            data["content_type"] = attachment.content_type
        return data

    def webhook(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The message an interaction's answer (callback, follow-up, edit) shows as."""
        state = self.state
        created = datetime.now(UTC)
        return self.message(
            message_id=state.snowflake(created),
            channel_id=state.channel.id,
            author=state.bot_user,
            content=body.get("content") or "",
            created_at=created,
            embeds=body.get("embeds") or (),
        ) | {"webhook_id": str(state.application_id), "flags": body.get("flags") or 0}
