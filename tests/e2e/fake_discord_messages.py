"""Messages and members of the fake Discord: the message payloads it builds (for members, the
bot and interaction responses alike), channel history, and the gateway events a member's
messages and profile changes send (see tests/e2e/fake_discord.py for the API)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from tests.e2e.fake_discord_host import DiscordHost
from tests.e2e.fake_discord_models import FakeAttachment, FakeChannel, FakeMember


def _mention_payload(mentioned: FakeMember) -> dict[str, Any]:
    """A mentioned member as a message lists it: the user with its guild member inside."""
    payload = mentioned.user_payload()
    payload["member"] = mentioned.member_payload(with_user=False)
    return payload


class MessageEvents(DiscordHost):
    """Mixin of `FakeDiscord`: messages in history, and the events members cause."""

    def forget_message(self, message_id: int) -> None:
        """Delete a message from history without telling the bot (deleted while offline)."""
        message = self._find_message(message_id)
        del self.history[int(message["channel_id"])][message_id]

    def add_history(self, content: str, **options: Any) -> dict[str, Any]:
        """Store a message in channel history without telling the bot (sent while offline)."""
        return self._build_message(content, **options)

    async def send_message(self, content: str, **options: Any) -> dict[str, Any]:
        """A member posts a message: stored in history and dispatched as MESSAGE_CREATE."""
        message = self._build_message(content, **options)
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    def _find_message(self, message_id: int) -> dict[str, Any]:
        for messages in self.history.values():
            if message_id in messages:
                return messages[message_id]
        raise KeyError(message_id)

    async def edit_message(self, message_id: int, content: str) -> dict[str, Any]:
        message = self._find_message(message_id)
        message["content"] = content
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        await self.dispatch("MESSAGE_UPDATE", message)
        return message

    async def delete_message(self, message_id: int) -> dict[str, Any]:
        message = self._find_message(message_id)
        del self.history[int(message["channel_id"])][message_id]
        data = {
            "id": str(message_id),
            "channel_id": message["channel_id"],
            "guild_id": str(self.guild.id),
        }
        await self.dispatch("MESSAGE_DELETE", data)
        return data

    async def update_member(self, who: str | int | FakeMember, **changes: Any) -> dict[str, Any]:
        """Change a member (nick=, global_name=, username=) and send GUILD_MEMBER_UPDATE."""
        member = self.member(who)
        for name, value in changes.items():
            setattr(member, name, value)
        data = member.member_payload()
        data["guild_id"] = str(self.guild.id)
        await self.dispatch("GUILD_MEMBER_UPDATE", data)
        return data

    async def member_join(self, member: FakeMember) -> dict[str, Any]:
        self.add_member(member)
        data = member.member_payload()
        data["guild_id"] = str(self.guild.id)
        await self.dispatch("GUILD_MEMBER_ADD", data)
        return data

    def _message_payload(
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
        attachment_payloads = [self._attachment_payload(a) for a in attachments]
        data: dict[str, Any] = {
            "id": str(message_id),
            "type": 19 if reply_to else 0,
            "channel_id": str(channel_id),
            "guild_id": str(self.guild.id),
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
                {"id": str(self.snowflake()), "name": name, "format_type": 1} for name in stickers
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
                "guild_id": str(self.guild.id),
            }
            referenced = self.history.get(channel_id, {}).get(reply_to)
            data["referenced_message"] = referenced
        return data

    def _attachment_payload(self, attachment: FakeAttachment | str) -> dict[str, Any]:
        """An attachment of a message (a bare string is a file name), with a fresh id."""
        if isinstance(attachment, str):
            attachment = FakeAttachment(attachment)
        attachment_id = self.snowflake()
        url = f"{self.base_url}/attachments/{attachment_id}/{attachment.filename}"
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

    def _build_message(
        self,
        content: str,
        *,
        author: str | int | FakeMember = "alice",
        channel: FakeChannel | int | str | None = None,
        reply_to: int | None = None,
        mentions: Iterable[str | int | FakeMember] = (),
        attachments: Iterable[FakeAttachment | str] = (),
        embeds: Iterable[Mapping[str, Any]] = (),
        stickers: Iterable[str] = (),
        created_at: datetime | None = None,
    ) -> dict[str, Any]:
        created = created_at or datetime.now(UTC)
        # snowflakes carry milliseconds; keep the timestamp consistent with the id
        created = created.replace(microsecond=created.microsecond // 1000 * 1000)
        channel_id = self._channel_id(channel)
        message = self._message_payload(
            message_id=self.snowflake(created),
            channel_id=channel_id,
            author=self.member(author),
            content=content,
            created_at=created,
            reply_to=reply_to,
            mentions=[self.member(m) for m in mentions],
            attachments=attachments,
            embeds=embeds,
            stickers=stickers,
        )
        self.history.setdefault(channel_id, {})[int(message["id"])] = message
        return message
