"""The dashboard's web application: routes and the login gate (`base.py`: what handlers share).

An adapter like the CLI: every read and every change goes through the `memory` front door (its
services and `admin_views`), never the database; pages are Jinja2 templates with autoescape on,
so whatever a member wrote is shown as text.
"""

from __future__ import annotations

import logging

from aiohttp import web

from bot.dashboard import actions, pages, tail
from bot.dashboard.auth import COOKIE, SESSION_SECONDS, Sessions
from bot.dashboard.base import DASHBOARD, Dashboard, Handler, dashboard_of, environment, render
from memory.ports import FrontDoor

_log = logging.getLogger(__name__)


@web.middleware
async def _gate(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Nothing but the login page without a valid session cookie."""
    if request.path == "/login":
        return await handler(request)
    board = dashboard_of(request)
    if not board.sessions.valid(request.cookies.get(COOKIE)):
        return render(request, "login.html", status=401, title="Log in", failed=False)
    response = await handler(request)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


@web.middleware
async def _unanswered(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A query past the statement timeout every process shares (the pool's) fails the page
    with 503 and says so, rather than a bare 500."""
    try:
        return await handler(request)
    except TimeoutError:
        _log.warning("dashboard: %s: the database did not answer in time", request.path)
        return web.Response(
            status=503,
            text="The database did not answer within the statement timeout; try again.",
        )


async def login(request: web.Request) -> web.StreamResponse:
    """`/login?token=...` (the printed link) or the login form's POST."""
    board = dashboard_of(request)
    offered = request.query.get("token")
    if request.method == "POST":
        offered = str((await request.post()).get("token", ""))
    if offered is None:
        return render(request, "login.html", status=401, title="Log in", failed=False)
    if not board.sessions.token_ok(offered):
        board.memory.telemetry.emit("dashboard_login", outcome="refused")
        return render(request, "login.html", status=401, title="Log in", failed=True)
    board.memory.telemetry.emit("dashboard_login", outcome="ok")
    response = web.HTTPSeeOther("/")
    response.set_cookie(
        COOKIE,
        board.sessions.issue(),
        max_age=SESSION_SECONDS,
        httponly=True,
        samesite="Strict",
        path="/",
    )
    raise response


def build_app(memory: FrontDoor, *, sessions: Sessions, allow_changes: bool) -> web.Application:
    app = web.Application(middlewares=[_gate, _unanswered])
    app[DASHBOARD] = Dashboard(
        memory, memory.operations.views, sessions, allow_changes, environment()
    )
    app.router.add_route("GET", "/login", login)
    app.router.add_route("POST", "/login", login)
    pages.add_routes(app.router)
    actions.add_routes(app.router)
    tail.add_routes(app.router)
    return app
