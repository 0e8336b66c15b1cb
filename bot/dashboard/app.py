"""The dashboard's web application: routes, the login gate and page rendering.

An adapter like the CLI: every read and every change goes through the `memory` front door (its
services and `admin_views`), never the database; pages are Jinja2 templates with autoescape on,
so whatever a member wrote is shown as text.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from aiohttp import web

from bot.dashboard.auth import COOKIE, SESSION_SECONDS, Sessions
from memory import AdminViews, Memory, admin_views

_log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Dashboard:
    """What every handler needs: memory, its admin views, the sessions and the mode."""

    memory: Memory
    views: AdminViews
    sessions: Sessions
    allow_changes: bool
    templates: jinja2.Environment


DASHBOARD: web.AppKey[Dashboard] = web.AppKey("dashboard", Dashboard)


def dashboard_of(request: web.Request) -> Dashboard:
    return request.app[DASHBOARD]


def render(
    request: web.Request, template: str, *, status: int = 200, **values: Any
) -> web.Response:
    board = dashboard_of(request)
    cookie = request.cookies.get(COOKIE, "")
    page = board.templates.get_template(template).render(
        allow_changes=board.allow_changes,
        form_token=board.sessions.form_token(cookie) if cookie else "",
        path=request.path,
        **values,
    )
    return web.Response(text=page, status=status, content_type="text/html", charset="utf-8")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["q"] = lambda value: quote(str(value), safe="")
    return env


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


def build_app(memory: Memory, *, sessions: Sessions, allow_changes: bool) -> web.Application:
    from bot.dashboard import actions, pages, tail  # the handlers need the helpers above

    app = web.Application(middlewares=[_gate, _unanswered])
    app[DASHBOARD] = Dashboard(memory, admin_views(memory), sessions, allow_changes, _environment())
    app.router.add_route("GET", "/login", login)
    app.router.add_route("POST", "/login", login)
    pages.add_routes(app.router)
    actions.add_routes(app.router)
    tail.add_routes(app.router)
    return app
