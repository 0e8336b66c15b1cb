"""Slash commands and buttons on the fake Discord: INTERACTION_CREATE payloads for the
commands the bot synced, and what the bot answered to each (see tests/e2e/fake_discord.py
for the API)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.e2e.fake_discord_host import BotRecord, DiscordState, Dispatcher
from tests.e2e.fake_discord_models import ALL_PERMISSIONS, OPTION_TYPES, FakeChannel, FakeMember


class SlashCommands:
    """Invoking the bot's commands and reading its answers, held by `FakeDiscord` as
    `slash`: the interactions go out through the gateway, the answers arrive in the record."""

    def __init__(self, state: DiscordState, record: BotRecord, gateway: Dispatcher) -> None:
        self.state = state
        self.record = record
        self.gateway = gateway

    def _command_for(self, name: str) -> tuple[dict[str, Any] | None, int | None]:
        for scope in (self.state.guild.id, None):
            for command in self.record.synced_commands.get(scope, []):
                if command.get("name") == name and command.get("type", 1) == 1:
                    return command, scope
        return None, None

    def _option(self, name: str, value: Any, resolved: dict[str, dict[str, Any]]) -> dict[str, Any]:
        guild = self.state.guild
        if isinstance(value, FakeMember) or (
            isinstance(value, str) and any(m.username == value for m in guild.members.values())
        ):
            member = self.state.member(value)
            resolved.setdefault("users", {})[str(member.id)] = member.user_payload()
            member_data = member.member_payload(with_user=False)
            member_data["permissions"] = str(guild.everyone_permissions)
            resolved.setdefault("members", {})[str(member.id)] = member_data
            return {"type": 6, "name": name, "value": str(member.id)}
        return {"type": OPTION_TYPES[type(value)], "name": name, "value": value}

    async def invoke_slash(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        user: str | int | FakeMember = "alice",
        channel: FakeChannel | int | str | None = None,
        member_permissions: int | None = None,
    ) -> dict[str, Any]:
        """Dispatch INTERACTION_CREATE for `/name options` as `user`; returns the interaction."""
        root, *subs = name.split()
        resolved: dict[str, dict[str, Any]] = {}
        leaf = [self._option(key, value, resolved) for key, value in (options or {}).items()]
        for sub in reversed(subs):
            leaf = [{"type": 1 if sub == subs[-1] else 2, "name": sub, "options": leaf}]
        command, scope = self._command_for(root)
        invoker = self.state.member(user)
        channel_id = self.state.channel_id(channel)
        data: dict[str, Any] = {
            "id": str(command["id"]) if command else str(self.state.snowflake()),
            "name": root,
            "type": 1,
            "options": leaf,
        }
        if resolved:
            data["resolved"] = resolved
        if scope is not None:
            data["guild_id"] = str(scope)
        interaction = self._interaction(2, data, invoker, channel_id, member_permissions)
        self.record.interaction_payloads[int(interaction["id"])] = interaction
        await self.gateway.dispatch("INTERACTION_CREATE", interaction)
        return interaction

    def _interaction(
        self,
        kind: int,
        data: dict[str, Any],
        invoker: FakeMember,
        channel_id: int,
        member_permissions: int | None,
    ) -> dict[str, Any]:
        """An INTERACTION_CREATE payload (2: a slash command, 3: a component) with a new id
        and token that the REST callbacks of this fake answer to."""
        guild = self.state.guild
        interaction_id = self.state.snowflake()
        token = f"token-{interaction_id}"
        self.record.interactions[token] = interaction_id
        permissions = (
            guild.everyone_permissions if member_permissions is None else member_permissions
        )
        member_data = invoker.member_payload()
        member_data["permissions"] = str(permissions)
        channel_obj = next(c for c in guild.channels if c.id == channel_id)
        return {
            "id": str(interaction_id),
            "application_id": str(self.state.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(guild.id),
            "channel_id": str(channel_id),
            "channel": {
                "id": str(channel_id),
                "type": channel_obj.type,
                "name": channel_obj.name,
                "guild_id": str(guild.id),
                "permissions": str(ALL_PERMISSIONS),
            },
            "member": member_data,
            "token": token,
            "version": 1,
            "locale": "en-US",
            "guild_locale": "en-US",
            "app_permissions": str(ALL_PERMISSIONS),
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
        }

    async def click_button(
        self, interaction_id: int | str, label: str, *, user: str | int | FakeMember = "alice"
    ) -> dict[str, Any]:
        """Press the button labelled `label` on the message the bot answered the interaction
        with (INTERACTION_CREATE type 3, as Discord sends it); returns the click's interaction."""
        key = int(interaction_id)
        message = self.record.response_messages[key]
        buttons = [
            button
            for row in message.get("components") or []
            for button in row.get("components") or []
        ]
        button = next((b for b in buttons if b.get("label") == label), None)
        if button is None:
            raise KeyError(f"no button {label!r}; there are {[b.get('label') for b in buttons]}")
        data = {"custom_id": button["custom_id"], "component_type": button["type"]}
        channel_id = int(self.record.interaction_payloads[key]["channel_id"])
        clicker = self.state.member(user)
        click = self._interaction(3, data, clicker, channel_id, None) | {"message": message}
        await self.gateway.dispatch("INTERACTION_CREATE", click)
        return click

    async def wait_for_interaction_response(
        self,
        interaction_id: int | str,
        timeout: float = 5.0,  # noqa: ASYNC109 - a test helper's deadline
    ) -> dict[str, Any]:
        key, responses = int(interaction_id), self.record.interaction_responses
        return await self.record.wait(lambda: responses.get(key), timeout, "response")

    def interaction_text(self, interaction_id: int | str) -> str:
        """Everything the bot said for one interaction: response, edits, follow-ups."""
        key, record = int(interaction_id), self.record
        parts: list[str] = []
        response = record.interaction_responses.get(key, {})
        parts.append((response.get("data") or {}).get("content") or "")
        parts += [edit.get("content") or "" for edit in record.interaction_edits.get(key, [])]
        parts += [follow.get("content") or "" for follow in record.followups.get(key, [])]
        for payload in [
            response.get("data") or {},
            *record.interaction_edits.get(key, []),
            *record.followups.get(key, []),
        ]:
            for embed in payload.get("embeds") or []:
                parts.append(embed.get("title") or "")
                parts.append(embed.get("description") or "")
                parts += [f"{f.get('name')}: {f.get('value')}" for f in embed.get("fields", [])]
        return "\n".join(part for part in parts if part)
