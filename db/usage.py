"""LLM usage per day: running sums every process adds to (`llm_usage`, V017, V024)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from datetime import date

from db.rows import fetch_as
from db.types import Executor


@dataclass(frozen=True, slots=True)
class UsageRow:
    """Attempts of one kind: `outcome` ok counts answered calls (with their tokens); the
    others count attempts that got no answer (`error_class` says why) or answers replaced by
    the offline result (degraded, `error_class` the reason). `estimated`: tokens we counted
    ourselves (the offline provider), not a server."""

    day: date
    guild_id: int
    purpose: str
    provider: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    outcome: str = "ok"
    error_class: str = ""
    estimated: bool = False


# Attempts that got no answer: a later try of the same provider answered (retried), the next
# provider did (fallback), none did (error), the caller stopped waiting (cancelled). What
# `memorybot usage` and the dashboard both count as failed attempts.
UNANSWERED = ("retried", "fallback", "error", "cancelled")

_COLUMNS = ", ".join(field.name for field in fields(UsageRow))

_ADD = f"""
INSERT INTO llm_usage AS u ({_COLUMNS})
SELECT * FROM unnest($1::date[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                     $6::int[], $7::bigint[], $8::bigint[], $9::text[], $10::text[],
                     $11::boolean[])
ON CONFLICT (day, guild_id, purpose, provider, model, outcome, error_class, estimated)
DO UPDATE SET
    calls = u.calls + excluded.calls,
    input_tokens = u.input_tokens + excluded.input_tokens,
    output_tokens = u.output_tokens + excluded.output_tokens
"""


async def add_usage(db: Executor, rows: Sequence[UsageRow]) -> None:
    """Add these counts to the day's sums (one statement for all rows)."""
    if not rows:
        return
    columns = list(zip(*(astuple(row) for row in rows), strict=True))
    await db.execute(_ADD, *[list(column) for column in columns])


async def usage_since(
    db: Executor, first_day: date, *, guild_id: int | None = None
) -> list[UsageRow]:
    """Every row from `first_day` on (one guild's, or all), oldest day first."""
    return await fetch_as(
        db,
        UsageRow,
        f"SELECT {_COLUMNS} FROM llm_usage"
        " WHERE day >= $1 AND ($2::bigint IS NULL OR guild_id = $2)"
        " ORDER BY day, purpose, provider, model, guild_id, outcome, error_class, estimated",
        first_day,
        guild_id,
    )


async def tokens_on(db: Executor, day: date, *, skip_providers: Sequence[str] = ()) -> int:
    """Input plus output tokens servers reported for one day, all guilds and processes (our
    own estimates left out: nobody billed them)."""
    value = await db.fetchval(
        "SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM llm_usage"
        " WHERE day = $1 AND NOT estimated AND NOT provider = ANY($2::text[])",
        day,
        list(skip_providers),
    )
    return int(value)
