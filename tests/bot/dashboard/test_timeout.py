"""The dashboard's queries run under the statement timeout every process shares (the pool's,
db/pool.py): a page whose query cannot finish answers 503 once it passes, instead of hanging.
The timeout is shortened here and a lock held on the table the charts read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from db import pool as db_pool_module
from tests.bot.dashboard.conftest import GUILD, client


async def test_a_page_whose_query_cannot_finish_answers_503(
    seeded: Path, database_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_pool_module, "COMMAND_TIMEOUT_SECONDS", 2.0)
    blocker = await asyncpg.connect(database_dsn)
    try:
        async with client() as (http, sessions):
            await http.get(f"/login?token={sessions.token}")
            assert (await http.get(f"/guild/{GUILD}")).status == 200
            async with blocker.transaction():
                await blocker.execute("LOCK TABLE message_counts IN ACCESS EXCLUSIVE MODE")
                async with asyncio.timeout(60):  # a guard: the pool's timeout ends it first
                    for path in ("/", f"/guild/{GUILD}"):
                        response = await http.get(path)
                        assert response.status == 503, path
                        assert "statement timeout" in await response.text()
            assert (await http.get(f"/guild/{GUILD}")).status == 200
    finally:
        await blocker.close()
