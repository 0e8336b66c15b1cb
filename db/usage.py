"""LLM usage per day: running sums every process adds to (`llm_usage`, V017)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import asyncpg

Executor = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True, slots=True)
class UsageRow:
    day: date
    guild_id: int
    purpose: str
    provider: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int


_ADD = """
INSERT INTO llm_usage AS u
    (day, guild_id, purpose, provider, model, calls, input_tokens, output_tokens)
SELECT * FROM unnest($1::date[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                     $6::int[], $7::bigint[], $8::bigint[])
ON CONFLICT (day, guild_id, purpose, provider, model) DO UPDATE SET
    calls = u.calls + excluded.calls,
    input_tokens = u.input_tokens + excluded.input_tokens,
    output_tokens = u.output_tokens + excluded.output_tokens
"""


async def add_usage(db: Executor, rows: Sequence[UsageRow]) -> None:
    """Add these counts to the day's sums (one statement for all rows)."""
    if not rows:
        return
    columns = list(
        zip(
            *(
                (
                    r.day,
                    r.guild_id,
                    r.purpose,
                    r.provider,
                    r.model,
                    r.calls,
                    r.input_tokens,
                    r.output_tokens,
                )
                for r in rows
            ),
            strict=True,
        )
    )
    await db.execute(_ADD, *[list(column) for column in columns])


async def usage_since(
    db: Executor, first_day: date, *, guild_id: int | None = None
) -> list[UsageRow]:
    """Every row from `first_day` on (one guild's, or all), oldest day first."""
    records = await db.fetch(
        "SELECT day, guild_id, purpose, provider, model, calls, input_tokens, output_tokens"
        " FROM llm_usage WHERE day >= $1 AND ($2::bigint IS NULL OR guild_id = $2)"
        " ORDER BY day, purpose, provider, model, guild_id",
        first_day,
        guild_id,
    )
    return [UsageRow(**dict(record)) for record in records]


async def tokens_on(db: Executor, day: date, *, skip_providers: Sequence[str] = ()) -> int:
    """Input plus output tokens of one day, all guilds and processes."""
    value = await db.fetchval(
        "SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM llm_usage"
        " WHERE day = $1 AND NOT provider = ANY($2::text[])",
        day,
        list(skip_providers),
    )
    return int(value)
