"""Reading EXPLAIN (ANALYZE, FORMAT JSON) plans in tests: what a statement looked at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncpg


def summed(node: dict[str, Any], of_node: Callable[[dict[str, Any]], int]) -> int:
    """`of_node` added up over every node of a plan."""
    return sum(of_node(n) for n in nodes(node))


def rows_examined(node: dict[str, Any]) -> int:
    """Rows of `messages` a plan node looked at: those it kept and those its filters dropped."""
    if node.get("Relation Name") != "messages":
        return 0
    looked: float = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
    loops: int = node["Actual Loops"]
    return round(looked * loops)


def entries_examined(node: dict[str, Any]) -> int:
    """Rows of `messages` a plan node looked at, or entries of one of its indexes a bitmap
    scan collected (a bitmap of a channel's whole history is read in full, then combined)."""
    if node.get("Node Type") == "Bitmap Index Scan" and node["Index Name"].startswith("messages"):
        rows: float = node["Actual Rows"] * node["Actual Loops"]
        return round(rows)
    return rows_examined(node)


def nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of a plan, the root first."""
    return [node] + [n for child in node.get("Plans", []) for n in nodes(child)]


def looked_at(node: dict[str, Any]) -> int:
    """Rows a plan node of any relation looked at over all its loops: kept, and dropped by
    its filters, join filters and rechecks (the plan audit's measure; `rows_examined` counts
    `messages` and its filters only, as the older plan tests were written against)."""
    dropped = sum(
        node.get(key, 0)
        for key in (
            "Rows Removed by Filter",
            "Rows Removed by Join Filter",
            "Rows Removed by Index Recheck",
        )
    )
    looked: float = (node["Actual Rows"] + dropped) * node["Actual Loops"]
    return round(looked)


async def prepared_plan(pool: asyncpg.Pool, sql: str, arguments: str, mode: str) -> dict[str, Any]:
    """The top node of EXPLAIN (ANALYZE, FORMAT JSON) of `sql` run as a prepared statement (as
    asyncpg runs every statement) with `arguments` (SQL literals), planned in `mode`
    (plan_cache_mode: force_generic_plan is the plan PostgreSQL may keep after a statement's
    fifth run, blind to its arguments). The statement's own casts and comparisons give its
    parameters their types."""
    async with pool.acquire() as connection:
        await connection.execute(f"PREPARE explained AS {sql}")
        await connection.execute(f"SET plan_cache_mode = {mode}")
        try:
            [plan] = await connection.fetchval(
                f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE explained({arguments})"
            )
        finally:
            await connection.execute("RESET plan_cache_mode; DEALLOCATE explained")
    node: dict[str, Any] = plan["Plan"]
    return node
