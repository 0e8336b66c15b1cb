"""Reading EXPLAIN (ANALYZE, FORMAT JSON) plans in tests: what a statement looked at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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
