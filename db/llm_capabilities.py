"""What model endpoints accept (`llm_capabilities`, V020): read at start, written on a refusal."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from db.rows import fetch_as
from db.types import Executor


@dataclass(frozen=True, slots=True)
class CapabilityRow:
    endpoint: str
    model: str
    structured: str
    tools: bool
    reason: str
    updated_at: datetime | None = None


async def load_capabilities(db: Executor, endpoint: str | None = None) -> list[CapabilityRow]:
    """Every endpoint's rows (or one endpoint's), as last written."""
    return await fetch_as(
        db,
        CapabilityRow,
        "SELECT endpoint, model, structured, tools, reason, updated_at FROM llm_capabilities"
        " WHERE $1::text IS NULL OR endpoint = $1 ORDER BY endpoint, model",
        endpoint,
    )


async def save_capability(db: Executor, row: CapabilityRow) -> None:
    """Insert or replace what one (endpoint, model) accepts."""
    await db.execute(
        "INSERT INTO llm_capabilities (endpoint, model, structured, tools, reason, updated_at)"
        " VALUES ($1, $2, $3, $4, $5, now())"
        " ON CONFLICT (endpoint, model) DO UPDATE SET structured = excluded.structured,"
        " tools = excluded.tools, reason = excluded.reason, updated_at = now()",
        row.endpoint,
        row.model,
        row.structured,
        row.tools,
        row.reason[:500],
    )
