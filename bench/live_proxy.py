"""A recording reverse proxy between the bot and a model server (issue 44).

The live-model harness points `OPENAI_BASE_URL` at it, so every request the bot sends and every
answer the server gives is kept: the checks compare what a member saw with what the server said
(bench/live_checks.py), and the report shows what the model answered per purpose. The purpose
of each request is the `X-Memorybot-Purpose` header the OpenAI-compatible provider sends.

It runs on 127.0.0.1 in a thread of its own (the harness drives the CLI synchronously).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from memory.llm.providers.openai_compat import PURPOSE_HEADER

# The most one answer of a CPU-only model may take (the bot's own timeout is shorter).
UPSTREAM_SECONDS = 900.0
# How long a server's shutdown waits for requests still in flight before it cancels them. A CLI
# command that has exited can leave one behind (a background task's call, still waiting on a
# CPU-only model); nobody reads its answer, and aiohttp's own default (60 s) would wait it out.
SHUTDOWN_SECONDS = 2.0
# The most starting or stopping a loopback server may take beyond that.
LOOPBACK_SECONDS = 30.0
_HOP_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "content-encoding"}
)


@dataclass
class Exchange:
    """One request and the server's answer to it."""

    server: str  # which server of the run ("plain", "tools", ...)
    purpose: str
    path: str
    request: Any
    status: int = 0
    answer: Any = None
    seconds: float = 0.0

    def message(self) -> dict[str, Any]:
        """The answer's first choice's message ({} when there is none)."""
        if not isinstance(self.answer, dict):
            return {}
        choices = self.answer.get("choices") or []
        first = choices[0] if choices and isinstance(choices[0], dict) else {}
        message = first.get("message")
        return message if isinstance(message, dict) else {}

    def content(self) -> str:
        return str(self.message().get("content") or "")

    def tool_calls(self) -> list[dict[str, Any]]:
        calls = self.message().get("tool_calls") or []
        return [call for call in calls if isinstance(call, dict)]

    def sent_messages(self) -> list[dict[str, Any]]:
        messages = self.request.get("messages") if isinstance(self.request, dict) else None
        return [m for m in messages or [] if isinstance(m, dict)]


@dataclass
class RecordingProxy:
    """Forwards to `upstream` (a base URL ending in /v1) and keeps every exchange."""

    upstream: str
    server: str = "plain"
    exchanges: list[Exchange] = field(default_factory=list)
    port: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            sent: Any = json.loads(raw) if raw else None
        except ValueError:
            sent = raw.decode("utf-8", "replace")
        purpose = request.headers.get(PURPOSE_HEADER, "")
        exchange = Exchange(self.server, purpose, request.path, sent)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        url = self.upstream.rstrip("/") + request.path.removeprefix("/v1")
        started = time.monotonic()
        timeout = aiohttp.ClientTimeout(total=UPSTREAM_SECONDS)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.request(request.method, url, data=raw, headers=headers) as answer,
        ):
            body = await answer.read()
            exchange.status = answer.status
            kind = answer.headers.get("Content-Type", "application/json")
        exchange.seconds = round(time.monotonic() - started, 3)
        try:
            exchange.answer = json.loads(body) if body else None
        except ValueError:
            exchange.answer = body.decode("utf-8", "replace")
        if request.path.endswith("/chat/completions"):
            self.exchanges.append(exchange)
        return web.Response(body=body, status=exchange.status, content_type=kind.split(";")[0])

    def save(self, path: Path) -> None:
        """The exchanges as JSON lines, for whoever reads the run afterwards."""
        with path.open("a", encoding="utf-8") as out:
            for exchange in self.exchanges:
                out.write(json.dumps(asdict(exchange), ensure_ascii=False) + "\n")


@contextmanager
def serving(app: web.Application) -> Iterator[int]:
    """`app` on a free loopback port, served by a thread of its own until the block ends; the
    port."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_SECONDS)

    async def start() -> int:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        return int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def stop() -> None:
        """Stop serving, then end what is left (a request still waiting on its upstream), so
        no task is destroyed with the loop."""
        await runner.cleanup()
        left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)

    thread = threading.Thread(target=loop.run_forever, name="loopback-server", daemon=True)
    thread.start()
    try:
        port = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=LOOPBACK_SECONDS)
        yield port
    finally:
        stopping = asyncio.run_coroutine_threadsafe(stop(), loop)
        stopping.result(timeout=SHUTDOWN_SECONDS + LOOPBACK_SECONDS)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=LOOPBACK_SECONDS)
        loop.close()


@contextmanager
def recording(upstream: str, server: str = "plain") -> Iterator[RecordingProxy]:
    """A `RecordingProxy` serving on a free loopback port until the block ends."""
    proxy = RecordingProxy(upstream, server)
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", proxy._handle)
    with serving(app) as port:
        proxy.port = port
        yield proxy
