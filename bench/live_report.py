"""What a live-model run says per purpose: its telemetry's calls, accepted, degraded (by reason),
latency and tokens; and, from the recording proxy, what the model answered, with the purposes
it never got right named as such.

Pure functions over `llm_call` events (the JSON lines `Telemetry` writes) and the proxy's
exchanges, tested without a model server (tests/bench/test_live_report.py).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from bench.live_proxy import Exchange

# How much of an answer the report quotes.
EXAMPLE_CHARS = 160


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def purpose_table(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per purpose, for the model (not the offline provider): calls, accepted, degraded (by
    reason), fell back, p50/p95 latency in ms, tokens in and out."""
    rows: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"calls": 0, "accepted": 0, "degraded": 0, "fell_back": 0, "skipped": 0}
    )
    latencies: dict[str, list[float]] = defaultdict(list)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for event in events:
        if event.get("op") != "llm_call" or event.get("provider") in (None, "offline"):
            continue
        purpose, outcome = str(event.get("purpose")), event.get("outcome")
        row = rows[purpose]
        if outcome == "degraded":
            row["degraded"] += 1
            reasons[purpose][str(event.get("detail") or event.get("reason"))] += 1
            continue
        if outcome == "skipped":
            row["skipped"] += 1
            continue
        row["calls"] += 1
        if outcome == "ok":
            latencies[purpose].append(float(event.get("latency_ms") or 0))
            tokens[purpose][0] += int(event.get("input_tokens") or 0)
            tokens[purpose][1] += int(event.get("output_tokens") or 0)
        else:
            row["fell_back"] += 1
    for purpose, row in rows.items():
        ok = len(latencies[purpose])
        row["accepted"] = max(0, ok - row["degraded"])
        row["degraded_by"] = ", ".join(f"{k} {v}" for k, v in sorted(reasons[purpose].items()))
        row["latency_p50_ms"] = round(statistics.median(latencies[purpose]), 1) if ok else 0.0
        row["latency_p95_ms"] = round(_percentile(latencies[purpose], 0.95), 1)
        row["input_tokens"], row["output_tokens"] = tokens[purpose]
    return dict(sorted(rows.items()))


def what_it_answered(exchange: Exchange) -> str:
    """One answer of the server as the report quotes it: its text, the tools it asked for, or
    its error."""
    if exchange.status != 200:
        return f"HTTP {exchange.status}: {' '.join(str(exchange.answer).split())[:EXAMPLE_CHARS]}"
    calls = [str((call.get("function") or {}).get("name")) for call in exchange.tool_calls()]
    said = " ".join(exchange.content().split())[:EXAMPLE_CHARS]
    if calls:
        return f"tool_calls {', '.join(calls)}" + (f" and {said!r}" if said else "")
    return repr(said)


def examples(exchanges: list[Exchange]) -> dict[str, str]:
    """Per purpose, the first answer the model wrote (an error or an empty answer only when
    nothing else came: a refused format is the bot's first try, not the model's answer)."""
    found: dict[str, str] = {}
    answered: set[str] = set()
    for exchange in exchanges:
        if exchange.purpose in answered:
            continue
        found.setdefault(exchange.purpose, what_it_answered(exchange))
        if exchange.status == 200 and (exchange.content().strip() or exchange.tool_calls()):
            found[exchange.purpose] = what_it_answered(exchange)
            answered.add(exchange.purpose)
    return found


def never_right(table: dict[str, dict[str, Any]]) -> list[str]:
    """The purposes the model was asked and never got right: nothing of theirs was kept."""
    return [p for p, row in table.items() if row["calls"] and not row["accepted"]]


def render_table(
    table: dict[str, dict[str, Any]],
    answered: dict[str, str] | None = None,
    kept: dict[str, str] | None = None,
) -> str:
    """The table, each purpose followed by why it was degraded, what the model answered and
    what of its answers members were shown (`kept`, from bench/live_checks.py)."""
    answered, kept = answered or {}, kept or {}
    header = ("purpose", "calls", "accepted", "degraded", "fell back", "p50 ms", "p95 ms", "tokens")
    lines = [f"{header[0]:>18}  " + "  ".join(f"{h:>10}" for h in header[1:])]
    bad = never_right(table)
    for purpose, row in table.items():
        cells = (
            row["calls"],
            row["accepted"],
            row["degraded"],
            row["fell_back"],
            row["latency_p50_ms"],
            row["latency_p95_ms"],
            f"{row['input_tokens']}/{row['output_tokens']}",
        )
        lines.append(f"{purpose:>18}  " + "  ".join(f"{c!s:>10}" for c in cells))
        if row["degraded_by"]:
            lines.append(f"{'':>20}degraded: {row['degraded_by']}")
        if purpose in answered:
            verdict = "NEVER RIGHT, it answered" if purpose in bad else "answered e.g."
            lines.append(f"{'':>20}{verdict} {answered[purpose]}")
        if purpose in kept:
            shown = " ".join(kept[purpose].split())[:EXAMPLE_CHARS]
            lines.append(f"{'':>20}members were shown e.g. {shown!r}")
    return "\n".join(lines)
