"""Messages and members of the fake Discord: channel history, the gateway events a member's
messages and profile changes send, and the bot's own messages stored, recorded and echoed
(see tests/e2e/fake_discord.py for the API)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from tests.e2e.fake_discord_host import BotRecord, DiscordState, Dispatcher
from tests.e2e.fake_discord_models import FakeAttachment, FakeChannel, FakeMember
from tests.e2e.fake_discord_payloads import MessagePayloads

# Told of each message the bot POSTs (channel id, request body) before it is stored and
# echoed: how a timed fake (bench/reply_fake.py) notes when an answer arrived.
SentObserver = Callable[[int, dict[str, Any]], None]


class Messages:
    """Messages in history and the events members cause, held by `FakeDiscord` as
    `messages`; events go out through the gateway it is given, and `on_bot_sends` (if any)
    sees each message the bot POSTs first."""

    def __init__(
        self,
        state: DiscordState,
        record: BotRecord,
        payloads: MessagePayloads,
        gateway: Dispatcher,
        *,
        on_bot_sends: SentObserver | None = None,
    ) -> None:
        self.state = state
        self.record = record
        self.payloads = payloads
        self.gateway = gateway
        self.on_bot_sends = on_bot_sends

    def forget_message(self, message_id: int) -> None:
        """Delete a message from history without telling the bot (deleted while offline)."""
        message = self.state.find_message(message_id)
        del self.state.history[int(message["channel_id"])][message_id]

    def add_history(self, content: str, **options: Any) -> dict[str, Any]:
        """Store a message in channel history without telling the bot (sent while offline)."""
        return self.build(content, **options)

    async def send_message(self, content: str, **options: Any) -> dict[str, Any]:
        """A member posts a message: stored in history and dispatched as MESSAGE_CREATE."""
        message = self.build(content, **options)
        await self.gateway.dispatch("MESSAGE_CREATE", message)
        return message

    async def edit_message(self, message_id: int, content: str) -> dict[str, Any]:
        message = self.state.find_message(message_id)
        message["content"] = content
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        await self.gateway.dispatch("MESSAGE_UPDATE", message)
        return message

    async def delete_message(self, message_id: int) -> dict[str, Any]:
        message = self.state.find_message(message_id)
        del self.state.history[int(message["channel_id"])][message_id]
        data = {
            "id": str(message_id),
            "channel_id": message["channel_id"],
            "guild_id": str(self.state.guild.id),
        }
        await self.gateway.dispatch("MESSAGE_DELETE", data)
        return data

    async def update_member(self, who: str | int | FakeMember, **changes: Any) -> dict[str, Any]:
        """Change a member (nick=, global_name=, username=) and send GUILD_MEMBER_UPDATE."""
        member = self.state.member(who)
        for name, value in changes.items():
            setattr(member, name, value)
        data = member.member_payload()
        data["guild_id"] = str(self.state.guild.id)
        await self.gateway.dispatch("GUILD_MEMBER_UPDATE", data)
        return data

    async def member_join(self, member: FakeMember) -> dict[str, Any]:
        self.state.add_member(member)
        data = member.member_payload()
        data["guild_id"] = str(self.state.guild.id)
        await self.gateway.dispatch("GUILD_MEMBER_ADD", data)
        return data

    def build(
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
        """A member's message, stored in its channel's history (no event)."""
        state = self.state
        created = created_at or datetime.now(UTC)
        # snowflakes carry milliseconds; keep the timestamp consistent with the id
        created = created.replace(microsecond=created.microsecond // 1000 * 1000)
        channel_id = state.channel_id(channel)
        message = self.payloads.message(
            message_id=state.snowflake(created),
            channel_id=channel_id,
            author=state.member(author),
            content=content,
            created_at=created,
            reply_to=reply_to,
            mentions=[state.member(m) for m in mentions],
            attachments=attachments,
            embeds=embeds,
            stickers=stickers,
        )
        state.history.setdefault(channel_id, {})[int(message["id"])] = message
        return message

    async def bot_sends(self, channel_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """The bot POSTed a message: stored, recorded in `sent_messages`, and echoed over the
        gateway as Discord does (so a test can check that the bot ignores its own)."""
        if self.on_bot_sends is not None:
            self.on_bot_sends(channel_id, body)
        reference = body.get("message_reference") or {}
        reply_to = int(reference["message_id"]) if reference.get("message_id") else None
        created = datetime.now(UTC)
        message = self.payloads.message(
            message_id=self.state.snowflake(created),
            channel_id=channel_id,
            author=self.state.bot_user,
            content=body.get("content") or "",
            created_at=created,
            reply_to=reply_to,
            embeds=body.get("embeds") or (),
        )
        message["allowed_mentions"] = body.get("allowed_mentions")
        self.state.history.setdefault(channel_id, {})[int(message["id"])] = message
        self.record.sent_messages.append(message)
        if self.gateway.connected:
            await self.gateway.dispatch("MESSAGE_CREATE", message)
        return message
