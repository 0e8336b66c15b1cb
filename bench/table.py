"""Turn `python -m bench` output into the markdown tables of docs/performance.md.

    python -m bench > results.jsonl && python -m bench.table results.jsonl

Lines that are not JSON figures (make's echo, warnings) are skipped, so `make bench | tee`
output works too. The tables only rearrange figures; nothing is computed here.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)

_SCALE_COLUMNS = [
    ("messages_stored", "messages"),
    ("daily_calls_per_guild_day", "daily calls / guild-day"),
    ("daily_reduce_calls_per_guild_day", "of which reduce"),
    ("daily_tokens_per_guild_day", "daily tokens / guild-day"),
    ("member_calls_per_requested_member", "calls / member asked"),
    ("cold_guild_p50_ms", "cold guild ms"),
    ("cold_member_p50_ms", "cold member ms"),
    ("warm_p50_ms", "warm p50 ms"),
    ("warm_p99_ms", "warm p99 ms"),
    ("context_history_bytes_per_member", "context+history B / member"),
    ("today_batch_bytes_per_guild", "today batch B / guild"),
    ("restart_llm_calls", "calls after restart"),
]
_PARAMETER_KEYS = ("bench", "metric", "value", "unit")


def read_figures(lines: Iterable[str]) -> list[dict[str, Any]]:
    figures = []
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict) and {"bench", "metric", "value"} <= item.keys():
            figures.append(item)
    return figures


def fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.3g}" if abs(value) < 1 else f"{value:,.2f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def figure_table(figures: list[dict[str, Any]], bench: str) -> str:
    """Every figure of one bench: metric, value, unit and its parameters."""
    rows = ["| metric | value | unit | parameters |", "|---|---:|---|---|"]
    for item in figures:
        if item["bench"] != bench:
            continue
        params = ", ".join(
            f"{key}={fmt(value)}" for key, value in item.items() if key not in _PARAMETER_KEYS
        )
        rows.append(f"| {item['metric']} | {fmt(item['value'])} | {item['unit']} | {params} |")
    return "\n".join(rows)


def scale_table(figures: list[dict[str, Any]]) -> str:
    """One row per scale case, one column per metric."""
    cases: dict[tuple[Any, ...], dict[str, Any]] = {}
    for item in figures:
        if item["bench"] != "scale":
            continue
        key = (item["sweep"], item["guilds"], item["members_per_guild"], item["messages_per_day"])
        cases.setdefault(key, {})[item["metric"]] = item["value"]
    header = ["sweep", "guilds", "members/guild", "msgs/day/guild"]
    header += [title for _, title in _SCALE_COLUMNS]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (sweep, guilds, members, messages), values in cases.items():
        cells = [sweep, fmt(guilds), fmt(members), fmt(messages)]
        cells += [fmt(values.get(metric)) for metric, _ in _SCALE_COLUMNS]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def render(figures: list[dict[str, Any]]) -> str:
    parts = []
    benches = (
        "targets",
        "ingest",
        "economy",
        "latency",
        "memory",
        "recall",
        "quality",
        "reply_e2e",
    )
    for bench in benches:
        if any(item["bench"] == bench for item in figures):
            parts.append(f"### {bench}\n\n{figure_table(figures, bench)}")
    if any(item["bench"] == "scale" for item in figures):
        parts.append(f"### scale\n\n{scale_table(figures)}")
    if any(item["bench"] == "run" for item in figures):
        parts.append(f"### run\n\n{figure_table(figures, 'run')}")
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = Path(args[0]).read_text(encoding="utf-8") if args else sys.stdin.read()
    sys.stdout.write(render(read_figures(text.splitlines())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
