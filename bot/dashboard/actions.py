"""Admin actions: forget a fact, undo, purge a member, retry held jobs, change a guild setting,
mark a channel restricted or public.

Only with `--allow-changes`; otherwise every action answers 403 and says how to enable them.
Each is a GET that shows what will happen (the confirmation) and a POST from that page that
does it, through the same `memory` services and permission rules as the commands (the operator
is an admin, like the console's: Manage Server), and leaves a `dashboard_action` line in
telemetry. The line names the action, guild and member (or channel), never the words of a
forget.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.dashboard import channels
from bot.dashboard.auth import COOKIE
from bot.dashboard.base import dashboard_of, render, stored_id
from memory.core.channels import MEMORY_SOURCES
from memory.core.models import Member
from memory.ports import InvalidSetting, PrivacyError, export_summary

# The operator as the commands see them: no Discord account, an admin's rights.
OPERATOR_ID = 0
ACTIONS = ("forget", "undo", "purge", "retry", "settings", "visibility")


def _fields(request: web.Request, form: Any) -> dict[str, str]:
    source = form if request.method == "POST" else request.query
    return {key: str(value).strip() for key, value in source.items()}


async def _member(request: web.Request, fields: dict[str, str]) -> tuple[int, Member]:
    board = dashboard_of(request)
    guild_id = stored_id(fields.get("guild_id", ""), "guild_id", "no such guild")
    user_id = stored_id(fields.get("user_id", ""), "user_id", "no such member")
    found = await board.memory.members.get(guild_id, [user_id])
    if user_id not in found:
        raise web.HTTPNotFound(text="no such member")
    return guild_id, found[user_id]


async def _describe(request: web.Request, name: str, fields: dict[str, str]) -> str:
    """What the action will do, in words, for the confirmation page."""
    memory = dashboard_of(request).memory
    if name == "retry":
        held = await memory.worker.queue.held()
        return f"Queue the {len(held)} held job(s) again now."
    if name == "visibility":
        return await channels.describe(memory, await channels.asked_mark(memory, fields))
    if name == "settings":
        return "Change the settings of this guild: " + (
            ", ".join(f"{key} = {value}" for key, value in _changes(fields).items()) or "nothing"
        )
    guild_id, member = await _member(request, fields)
    if name == "forget":
        if not fields.get("statement"):
            raise web.HTTPBadRequest(text="say what to forget")
        return f"Forget “{fields['statement']}” about {member.display_name}."
    if name == "undo":
        return f"Undo the latest change of {member.display_name}'s facts."
    subject = await memory.privacy.subject(guild_id, str(member.user_id))
    preview = export_summary(await memory.privacy.preview(subject))
    return f"Delete everything held about {member.display_name}: {preview} This cannot be undone."


def _changes(fields: dict[str, str]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if fields.get("timezone"):
        changes["timezone"] = fields["timezone"]
    if fields.get("memory_sources") in MEMORY_SOURCES:
        changes["memory_sources"] = fields["memory_sources"]
    silence = fields.get("episode_silence_minutes", "")
    if silence.isdigit():
        changes["episode_silence_minutes"] = int(silence)
    return changes


async def action(request: web.Request) -> web.StreamResponse:
    board = dashboard_of(request)
    name = request.match_info["name"]
    if name not in ACTIONS:
        raise web.HTTPNotFound(text="no such action")
    if not board.allow_changes:
        return render(request, "readonly.html", status=403, title="Read-only")
    form = await request.post() if request.method == "POST" else None
    fields = _fields(request, form)
    try:
        description = await _describe(request, name, fields)
        cookie = request.cookies.get(COOKIE, "")
        if request.method == "GET":
            return render(
                request,
                "confirm.html",
                title="Confirm",
                action=name,
                description=description,
                fields={k: v for k, v in fields.items() if k != "form_token"},
                form_token=board.sessions.form_token(cookie),
            )
        if fields.get("confirm") != "yes":
            raise web.HTTPBadRequest(text="not confirmed; nothing was changed")
        if not board.sessions.form_ok(cookie, fields.get("form_token")):
            raise web.HTTPForbidden(
                text="this form was sent already or is from another session; open it again"
            )
        outcome, message, back = await _do(request, name, fields)
    except (PrivacyError, InvalidSetting) as exc:
        outcome, message, back = "refused", str(exc), "/"
    board.memory.telemetry.emit("dashboard_action", outcome=outcome, action=name, **_audit(fields))
    return render(request, "done.html", title="Done", message=message, outcome=outcome, back=back)


def _audit(fields: dict[str, str]) -> dict[str, Any]:
    """Who and what the audit line names: ids and the mark asked for, never a forget's words."""
    audit: dict[str, Any] = {
        key: int(fields[key]) if fields.get(key, "").isdigit() else None
        for key in ("guild_id", "user_id")
    }
    if fields.get("channel_id", "").isdigit():
        audit["channel_id"] = int(fields["channel_id"])
        audit["visibility"] = fields.get("visibility")
    return audit


async def _do(request: web.Request, name: str, fields: dict[str, str]) -> tuple[str, str, str]:
    """(outcome, what happened, where to go back to)."""
    memory = dashboard_of(request).memory
    if name == "retry":
        count = await memory.worker.queue.retry_held()
        return "ok", f"Queued {count} held job(s) again.", "/"
    if name == "visibility":
        return await channels.apply(memory, await channels.asked_mark(memory, fields))
    if name == "settings":
        guild_id = stored_id(fields.get("guild_id", ""), "guild_id", "no such guild")
        await memory.guild_settings.update(guild_id, **_changes(fields))
        return "ok", "Settings updated.", f"/guild/{guild_id}/settings"
    guild_id, member = await _member(request, fields)
    back = f"/guild/{guild_id}/member/{member.user_id}"
    operator = Member(guild_id, OPERATOR_ID, username="dashboard")
    if name == "purge":
        subject = await memory.privacy.subject(guild_id, str(member.user_id))
        report = await memory.privacy.purge(subject, actor_id=None, wait=False)
        return "ok", report.describe(), f"/guild/{guild_id}"
    if name == "forget":
        result = await memory.commands.forget(
            guild_id, operator, member, fields["statement"], can_manage_guild=True
        )
    else:
        result = await memory.commands.undo(guild_id, operator, member, can_manage_guild=True)
    return result.outcome, result.reply or "", back


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_route("GET", "/action/{name}", action)
    router.add_route("POST", "/action/{name}", action)
