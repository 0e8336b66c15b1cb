"""What every dashboard handler shares: the dashboard's state on the application, and pages
rendered from the Jinja2 templates (autoescape on, so whatever a member wrote is shown as text).
The routes' modules and the application all import it; it imports none of them."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import markupsafe
from aiohttp import web

from bot.dashboard.auth import Sessions
from memory.ports import AdminViews, FrontDoor

TEMPLATES = Path(__file__).parent / "templates"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Dashboard:
    """What every handler needs: memory, its admin views, the sessions and the mode."""

    memory: FrontDoor
    views: AdminViews
    sessions: Sessions
    allow_changes: bool
    templates: jinja2.Environment


DASHBOARD: web.AppKey[Dashboard] = web.AppKey("dashboard", Dashboard)


def dashboard_of(request: web.Request) -> Dashboard:
    return request.app[DASHBOARD]


# Ids are PostgreSQL bigints: a longer number names nothing the bot could know.
_MAX_ID = (1 << 63) - 1


def stored_id(text: str, name: str, missing: str) -> int:
    """An id typed in an address or a form: 400 when not a number, 404 (`missing`) past what
    the database stores, so neither reaches a query as a 500."""
    if not text.isdigit():
        raise web.HTTPBadRequest(text=f"{name} must be a number")
    if len(text) > 19 or int(text) > _MAX_ID:
        raise web.HTTPNotFound(text=missing)
    return int(text)


def render(
    request: web.Request, template: str, *, status: int = 200, **values: Any
) -> web.Response:
    board = dashboard_of(request)
    values.setdefault("form_token", "")  # a confirmation page passes one (single use)
    page = board.templates.get_template(template).render(
        allow_changes=board.allow_changes, path=request.path, **values
    )
    return web.Response(text=page, status=status, content_type="text/html", charset="utf-8")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["q"] = lambda value: quote(str(value), safe="")
    env.filters["discord"] = discord_markup
    return env


_BOLD = re.compile(r"\*\*(.+?)\*\*")
_LINK = re.compile(r"&lt;(https://[^\s&]+)&gt;")


def discord_markup(text: str) -> markupsafe.Markup:
    """A digest as Discord would show it: **bold** bold and <https://...> a link, not literal
    asterisks; everything else escaped as text."""
    escaped = str(markupsafe.escape(text))
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = _LINK.sub(r'<a href="\1" rel="noreferrer">\1</a>', escaped)
    return markupsafe.Markup(escaped)
