"""The dashboard over plain HTTP: nothing without the printed token, pages render with their
charts, admin actions only with --allow-changes and confirmed, and privacy holds on every page
(restricted channels' words, forgotten statements, an opted-out member's messages)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.dashboard.auth import COOKIE
from bot.dashboard.base import DASHBOARD
from tests.bot.dashboard.conftest import ALICE, BOB, CAROL, GUILD, SECRET_WORDS, client

PAGES = (
    "/",
    f"/guild/{GUILD}",
    f"/guild/{GUILD}/member/{ALICE}",
    f"/guild/{GUILD}/member/{BOB}",
    f"/guild/{GUILD}/member/{CAROL}",
    f"/guild/{GUILD}/settings",
    "/telemetry",
)


async def test_nothing_is_served_without_the_token(seeded: Path) -> None:
    async with client(allow_changes=True) as (http, _):
        for path in (*PAGES, "/telemetry/events", "/action/retry", "/nowhere"):
            response = await http.get(path, allow_redirects=False)
            assert response.status == 401, path
            text = await response.text()
            assert "Log in" in text and "Sample Hikers" not in text and "Alice" not in text
        posted = await http.post("/action/retry", data={"confirm": "yes"})
        assert posted.status == 401
        wrong = await http.get("/login?token=not-it", allow_redirects=False)
        assert wrong.status == 401 and "not this dashboard" in await wrong.text()
        forged = await http.get("/", cookies={COOKIE: "9999999999.abcd.0123"})
        assert forged.status == 401


async def test_the_printed_link_logs_in_and_every_page_renders(seeded: Path) -> None:
    async with client() as (http, sessions):
        login = await http.get(f"/login?token={sessions.token}", allow_redirects=False)
        assert login.status == 303 and login.headers["Location"] == "/"
        assert "HttpOnly" in login.headers["Set-Cookie"]
        assert "SameSite=Strict" in login.headers["Set-Cookie"]
        for path in PAGES:
            response = await http.get(path)
            assert response.status == 200, path
        overview = await (await http.get("/")).text()
        assert overview.count('<svg class="chart"') == 5
        assert "Sample Hikers" in overview and "Messages per day" in overview
        guild = await (await http.get(f"/guild/{GUILD}")).text()
        assert '<svg class="chart"' in guild and "Europe" not in guild
        assert "#general" in guild and "restricted" in guild
        assert "Alice" in guild and "Bob" in guild
        member = await (await http.get(f"/guild/{GUILD}/member/{ALICE}")).text()
        assert "What a reply would be given now" in member and "tomatoes" in member
        form = await http.get("/action/retry")
        assert form.status == 403 and "--allow-changes" in await form.text()


async def test_privacy_holds_on_every_page(seeded: Path) -> None:
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        texts = {path: await (await http.get(path)).text() for path in PAGES}
        for path, text in texts.items():
            for word in SECRET_WORDS:
                assert word not in text.lower(), f"{word!r} on {path}"
        assert "Carol" not in texts[f"/guild/{GUILD}"]
        assert "opted out" in texts[f"/guild/{GUILD}"]
        assert "Nothing is held about them" in texts[f"/guild/{GUILD}/member/{CAROL}"]
        history = texts[f"/guild/{GUILD}/member/{ALICE}"]
        assert "(a forgotten statement)" in history  # the forget is listed, without its words
        assert "trips" in texts[f"/guild/{GUILD}"]  # the channel is named, marked restricted


async def test_actions_need_allow_changes_a_confirmation_and_leave_an_audit_line(
    seeded: Path,
) -> None:
    target = {"guild_id": str(GUILD), "user_id": str(ALICE), "statement": "grows tomatoes"}
    async with client() as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        refused = await http.post("/action/forget", data={**target, "confirm": "yes"})
        assert refused.status == 403
    async with client(allow_changes=True) as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        confirm = await http.get("/action/forget", params=target)
        page = await confirm.text()
        assert confirm.status == 200 and "Forget “grows tomatoes” about Alice" in page
        no_token = await http.post("/action/forget", data={**target, "confirm": "yes"})
        assert no_token.status == 403
        cookie = http.session.cookie_jar.filter_cookies(http.make_url("/"))[COOKIE].value
        token = sessions.form_token(cookie)
        unconfirmed = await http.post("/action/forget", data={**target, "form_token": token})
        assert unconfirmed.status == 400
        done = await http.post(
            "/action/forget", data={**target, "form_token": token, "confirm": "yes"}
        )
        assert done.status == 200
        member = await (await http.get(f"/guild/{GUILD}/member/{ALICE}")).text()
        assert "tomatoes" not in member.lower()
        log = (seeded / "logs" / "telemetry.jsonl").read_text(encoding="utf-8")
        audit = [json.loads(line) for line in log.splitlines() if "dashboard_action" in line]
        assert audit and audit[-1]["action"] == "forget" and audit[-1]["user_id"] == ALICE
        assert "tomatoes" not in json.dumps(audit)


async def test_marking_a_channel_checks_what_it_is_asked(seeded: Path) -> None:
    general = {"guild_id": str(GUILD), "channel_id": "800000000000000002"}
    restrict = {**general, "visibility": "restricted"}
    async with client(allow_changes=True) as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        unknown = await http.get("/action/visibility", params={**restrict, "channel_id": "12"})
        assert unknown.status == 404
        odd = await http.get("/action/visibility", params={**general, "visibility": "hidden"})
        assert odd.status == 400
        cookie = http.session.cookie_jar.filter_cookies(http.make_url("/"))[COOKIE].value
        form = {**general, "visibility": "public", "confirm": "yes"}
        same = await http.post(
            "/action/visibility", data={**form, "form_token": sessions.form_token(cookie)}
        )
        assert same.status == 200
        assert "#general was already marked public" in await same.text()  # unmarked: public
    log = (seeded / "logs" / "telemetry.jsonl").read_text(encoding="utf-8")
    audit = [json.loads(line) for line in log.splitlines() if "dashboard_action" in line]
    assert [(a["action"], a["outcome"]) for a in audit] == [("visibility", "unchanged")]


async def test_the_confirmation_of_a_mark_says_what_it_does_in_this_guild(seeded: Path) -> None:
    asked = {"guild_id": str(GUILD), "channel_id": "800000000000000002"}
    async with client(allow_changes=True) as (http, sessions):
        await http.get(f"/login?token={sessions.token}")
        page = await http.get("/action/visibility", params={**asked, "visibility": "restricted"})
        assert "goes now" in await page.text()
        await http.app[DASHBOARD].memory.guild_settings.update(GUILD, memory_sources="all")
        page = await http.get("/action/visibility", params={**asked, "visibility": "restricted"})
        text = await page.text()
        assert "memory_sources=all" in text and "goes now" not in text
