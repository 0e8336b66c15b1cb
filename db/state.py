"""Queries of `bot_state`: small key/value facts the bot keeps about itself."""

from __future__ import annotations

from db.types import Executor


async def get_state(db: Executor, key: str) -> str | None:
    value: str | None = await db.fetchval("SELECT value FROM bot_state WHERE key = $1", key)
    return value


async def set_state(db: Executor, key: str, value: str) -> None:
    await db.execute(
        "INSERT INTO bot_state (key, value) VALUES ($1, $2)"
        " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        key,
        value,
    )
