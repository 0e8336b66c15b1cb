"""A scripted HTTP server on 127.0.0.1: the network edge the real SDK clients talk to.

Tests queue replies (status, JSON or text body, headers) in the order the server should send
them, then point google-genai or openai at `base_url`. Every request is recorded, so a test
can check what the SDK actually put on the wire and how many times it called.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    # A hung server: the answer waits for this event (set it to let the request finish).
    hold: asyncio.Event | None = None


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeHTTPServer:
    """Answers each request with the next queued `Reply` (500 when the script runs out)."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        # Answers requests when no reply is queued (e.g. embeddings computed from the text).
        self.responder: Callable[[Recorded], Reply] | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        recorded = Recorded(request.method, request.path, dict(request.headers), body)
        self.requests.append(recorded)
        if not self.replies and self.responder is not None:
            reply = self.responder(recorded)
            return web.json_response(reply.body, status=reply.status, headers=reply.headers)
        if not self.replies:
            return web.json_response({"error": {"message": "no scripted reply"}}, status=500)
        reply = self.replies.popleft()
        if reply.hold is not None:
            await reply.hold.wait()
        if isinstance(reply.body, str):
            return web.Response(text=reply.body, status=reply.status, headers=reply.headers)
        return web.json_response(reply.body, status=reply.status, headers=reply.headers)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


# --- Recorded-style response bodies -------------------------------------------------------


def gemini_text(
    text: str, *, prompt_tokens: int = 120, output_tokens: int = 30, thoughts: int = 0
) -> dict[str, Any]:
    """A generateContent success as the Gemini API returns it."""
    usage: dict[str, int] = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": prompt_tokens + output_tokens + thoughts,
    }
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": text}], "role": "model"},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash-lite",
        "responseId": "fake-response-1",
    }


def gemini_error(code: int, status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status, **extra}}


GEMINI_429 = gemini_error(
    429,
    "RESOURCE_EXHAUSTED",
    "You exceeded your current quota, please check your plan and billing details.",
    details=[{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}],
)
GEMINI_500 = gemini_error(500, "INTERNAL", "An internal error has occurred.")
GEMINI_PROMPT_BLOCKED = {
    "promptFeedback": {
        "blockReason": "SAFETY",
        "safetyRatings": [
            {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": True}
        ],
    },
    "usageMetadata": {"promptTokenCount": 50, "totalTokenCount": 50},
    "modelVersion": "gemini-2.5-flash-lite",
}
GEMINI_ANSWER_BLOCKED = {
    "candidates": [
        {
            "finishReason": "SAFETY",
            "index": 0,
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "HIGH", "blocked": True}
            ],
        }
    ],
    "usageMetadata": {"promptTokenCount": 50, "totalTokenCount": 50},
    "modelVersion": "gemini-2.5-flash-lite",
}


def openai_text(
    text: str, *, model: str = "llama3.1", finish: str = "stop", prompt_tokens: int = 90
) -> dict[str, Any]:
    """A chat.completion as OpenAI-compatible servers (Ollama, vLLM...) return it."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1714550400,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 12, "total_tokens": 102},
    }


def openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
