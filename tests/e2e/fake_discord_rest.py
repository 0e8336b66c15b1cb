"""The REST half of the fake Discord: the routes discord.py calls, answered from the shared
state and recorded into the record of what the bot did (see tests/e2e/fake_discord.py for the
API)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from aiohttp import BodyPartReader, web

from tests.e2e.fake_discord_host import BotRecord, DiscordState
from tests.e2e.fake_discord_models import application_payload, guild_payload, thread_payload
from tests.e2e.fake_discord_payloads import MessagePayloads

_log = logging.getLogger(__name__)

# What a route handler returns for a call it has no case for (None is a 204 answer).
_UNHANDLED = object()


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses bodies whose content-type is exactly "application/json"
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


# What a message the bot POSTs goes through: `FakeDiscord` passes its messages part's
# `bot_sends` (which tells an observer, if it was given one, first).
BotSends = Callable[[int, dict[str, Any]], Awaitable[dict[str, Any]]]


class RestRoutes:
    """One aiohttp handler for every /api/v10 route, held by `FakeDiscord` as `rest`: answered
    from the shared state, recorded into the record; a message the bot POSTs goes to
    `bot_sends`."""

    def __init__(
        self,
        state: DiscordState,
        record: BotRecord,
        payloads: MessagePayloads,
        *,
        bot_sends: BotSends,
    ) -> None:
        self.state = state
        self.record = record
        self.payloads = payloads
        self.bot_sends = bot_sends

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        method = request.method
        self.record.requests.append((method, path))
        parts = path.strip("/").split("/")
        body = await self._body(request)
        try:
            result = await self._route(method, parts, body, request)
        except KeyError as exc:
            return _json({"message": f"Unknown {exc}", "code": 10008}, status=404)
        if result is None:
            return web.Response(status=204)
        if isinstance(result, web.StreamResponse):
            return result
        return _json(result)

    async def _body(self, request: web.Request) -> Any:
        if not request.can_read_body:
            return None
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            body: Any = None
            while (part := await reader.next()) is not None:
                if isinstance(part, BodyPartReader) and part.name == "payload_json":
                    body = json.loads(await part.text())
            return body
        text = await request.text()
        return json.loads(text) if text else None

    async def _route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """Answer one REST call through the handler of its first path segment; a call no
        handler knows is recorded in `unhandled` and answered with a sane default."""
        handlers = {
            "gateway": self._session_route,
            "users": self._session_route,
            "oauth2": self._session_route,
            "applications": self._application_route,
            "channels": self._channel_route,
            "guilds": self._guild_route,
            "interactions": self._interaction_route,
            "webhooks": self._interaction_route,
        }
        handler = handlers.get(parts[0]) if parts else None
        if handler is not None:
            result = await handler(method, parts, body, request)
            if result is not _UNHANDLED:
                return result
        self.record.unhandled.append((method, "/" + "/".join(parts)))
        _log.warning("fake discord: unhandled %s /%s", method, "/".join(parts))
        if method == "GET":
            return _json({"message": "Unknown route", "code": 0}, status=404)
        return None

    async def _session_route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """Where the gateway is, and who the bot is."""
        match (method, *parts):
            case ("GET", "gateway", "bot"):
                return {
                    "url": self.state.gateway_url.rstrip("/"),
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 1000,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            case ("GET", "gateway"):
                return {"url": self.state.gateway_url.rstrip("/")}
            case ("GET", "users", "@me"):
                return self.state.bot_user.user_payload()
            case ("GET", "users", user_id):
                return self.state.member(int(user_id)).user_payload()
            case ("GET", "oauth2", "applications", "@me"):
                return self._application()
        return _UNHANDLED

    def _application(self) -> dict[str, Any]:
        state = self.state
        return application_payload(
            state.application_id, state.bot_user.username, state.guild.owner_id
        )

    async def _application_route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """The application, and the commands the bot syncs."""
        match (method, *parts):
            case ("GET", "applications", "@me"):
                return self._application()
            case ("PUT", "applications", _, "commands"):
                return self._sync_commands(None, body or [])
            case ("PUT", "applications", _, "guilds", guild_id, "commands"):
                return self._sync_commands(int(guild_id), body or [])
            case ("GET", "applications", _, "commands"):
                return self.record.synced_commands.get(None, [])
            case ("GET", "applications", _, "guilds", guild_id, "commands"):
                return self.record.synced_commands.get(int(guild_id), [])
        return _UNHANDLED

    async def _channel_route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """A channel, its messages (sent, edited, deleted, read back), typing and reactions."""
        match (method, *parts):
            case ("POST", "channels", channel_id, "messages"):
                return await self.bot_sends(int(channel_id), body or {})
            case ("PATCH", "channels", channel_id, "messages", message_id):
                message = self.state.find_message(int(message_id))
                message.update(
                    {k: v for k, v in (body or {}).items() if k in ("content", "embeds")}
                )
                message["edited_timestamp"] = datetime.now(UTC).isoformat()
                return message
            case ("DELETE", "channels", channel_id, "messages", message_id):
                self.state.history.get(int(channel_id), {}).pop(int(message_id), None)
                return None
            case ("GET", "channels", channel_id, "messages"):
                if int(channel_id) in self.state.history_forbidden:
                    return _json({"message": "Missing Access", "code": 50001}, status=403)
                return self._history_page(int(channel_id), request.query)
            case ("GET", "channels", channel_id, "messages", message_id):
                return self.state.history[int(channel_id)][int(message_id)]
            case ("POST", "channels", channel_id, "typing"):
                self.record.typing.append(int(channel_id))
                return None
            case ("PUT", "channels", channel_id, "messages", message_id, "reactions", emoji, "@me"):
                self.record.reactions.append((int(channel_id), int(message_id), emoji))
                return None
            case ("GET", "channels", channel_id):
                payload = guild_payload(self.state.guild)
                return next(c for c in payload["channels"] if c["id"] == channel_id)
        return _UNHANDLED

    async def _guild_route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """The guild, its members and its active threads."""
        match (method, *parts):
            case ("GET", "guilds", _, "threads", "active"):
                threads = [thread_payload(t, self.state.guild.id) for t in self.state.threads]
                return {"threads": threads, "members": []}
            case ("GET", "guilds", _, "members", user_id):
                return self.state.member(int(user_id)).member_payload()
            case ("GET", "guilds", _, "members"):
                return [m.member_payload() for m in self.state.guild.members.values()]
            case ("GET", "guilds", _):
                return guild_payload(self.state.guild)
        return _UNHANDLED

    async def _interaction_route(
        self, method: str, parts: Sequence[str], body: Any, request: web.Request
    ) -> Any:
        """The bot's answers to interactions: callback, follow-ups, edits of the response."""
        match (method, *parts):
            case ("POST", "interactions", callback_id, token, "callback"):
                return self._interaction_callback(int(callback_id), body or {})
            case ("POST", "webhooks", _, token):
                interaction_id = self.record.interactions.get(token, 0)
                self.record.followups.setdefault(interaction_id, []).append(body or {})
                return self.payloads.webhook(body or {})
            case ("PATCH", "webhooks", _, token, "messages", _):
                interaction_id = self.record.interactions.get(token, 0)
                self.record.interaction_edits.setdefault(interaction_id, []).append(body or {})
                return self.payloads.webhook(body or {})
            case ("GET", "webhooks", _, token, "messages", _):
                interaction_id = self.record.interactions.get(token, 0)
                response = self.record.interaction_responses.get(interaction_id, {})
                return self.payloads.webhook(response.get("data") or {})
            case ("DELETE", "webhooks", _, token, "messages", _):
                return None
        return _UNHANDLED

    def _sync_commands(
        self, guild_id: int | None, commands: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        synced = []
        for command in commands:
            stored = dict(command)
            stored.setdefault("type", 1)
            stored["id"] = str(self.state.snowflake())
            stored["application_id"] = str(self.state.application_id)
            stored["version"] = "1"
            if guild_id is not None:
                stored["guild_id"] = str(guild_id)
            synced.append(stored)
        self.record.synced_commands[guild_id] = synced
        self.record.sync_calls.append(guild_id)
        return synced

    def _history_page(self, channel_id: int, query: Mapping[str, str]) -> list[dict[str, Any]]:
        """Discord semantics: always newest first; `after` pages upward from an id."""
        limit = min(int(query.get("limit", 50)), 100)
        ids = sorted(self.state.history.get(channel_id, {}))
        if "after" in query:
            chosen = [i for i in ids if i > int(query["after"])][:limit]
        elif "before" in query:
            chosen = [i for i in ids if i < int(query["before"])][-limit:]
        else:
            chosen = ids[-limit:]
        return [self.state.history[channel_id][i] for i in reversed(chosen)]

    def _interaction_callback(self, interaction_id: int, body: dict[str, Any]) -> dict[str, Any]:
        self.record.interaction_responses[interaction_id] = body
        kind = body.get("type")
        data = body.get("data") or {}
        result: dict[str, Any] = {
            "interaction": {
                "id": str(interaction_id),
                "type": 2,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool((data.get("flags") or 0) & 64),
            },
        }
        if kind == 4:
            message = self.payloads.webhook(data) | {"components": data.get("components") or []}
            self.record.response_messages[interaction_id] = message
            result["interaction"]["response_message_id"] = message["id"]
            result["resource"] = {"type": 4, "message": message}
        return result
