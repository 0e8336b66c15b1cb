"""`memorybot dashboard`: the admin's window on what the bot knows, does and costs (issue 36).

A small aiohttp server with Jinja2 pages and server-drawn SVG charts, over the same `memory`
front door as the CLI. `serve` listens, says where, and runs until stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web

from bot.dashboard.app import build_app
from bot.dashboard.auth import Sessions
from memory.ports import FrontDoor

__all__ = ["Sessions", "build_app", "running", "url_host"]


def url_host(host: str) -> str:
    """The host as a link names it (0.0.0.0 listens everywhere; the link says localhost)."""
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@asynccontextmanager
async def running(
    memory: FrontDoor, *, host: str, port: int, sessions: Sessions, allow_changes: bool
) -> AsyncIterator[str]:
    """Serve while the block runs; yields the login link (with the real port when 0 was asked)."""
    app = build_app(memory, sessions=sessions, allow_changes=allow_changes)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1] if runner.addresses else port
        yield f"http://{url_host(host)}:{bound}/login?token={sessions.token}"
    finally:
        await asyncio.shield(runner.cleanup())
