"""What a live-model run's telemetry says, per purpose, and the checks of issue 33.

Pure functions over `llm_call` events (the JSON lines `Telemetry` writes), so the report and
the checks are tested without a model server (tests/bench/test_live_report.py).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

# Words of an error that says the server lacks a request format.
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")


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


def render_table(table: dict[str, dict[str, Any]]) -> str:
    header = ("purpose", "calls", "accepted", "degraded", "fell back", "p50 ms", "p95 ms", "tokens")
    lines = [f"{header[0]:>18}  " + "  ".join(f"{h:>10}" for h in header[1:])]
    for purpose, row in table.items():
        cells = (
            purpose,
            row["calls"],
            row["accepted"],
            row["degraded"],
            row["fell_back"],
            row["latency_p50_ms"],
            row["latency_p95_ms"],
            f"{row['input_tokens']}/{row['output_tokens']}",
        )
        lines.append("  ".join(f"{c!s:>10}" for c in cells))
        if row["degraded_by"]:
            lines.append(f"{'':>10}  degraded: {row['degraded_by']}")
    return "\n".join(lines)


class Checks:
    """The issue's 'done when', each a named pass/fail with what failed."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = [e for e in events if e.get("op") == "llm_call"]
        self._results: dict[str, str] = {}  # name -> "" (passed) or what failed
        self._format_failures()
        self._refused_retries()

    def _set(self, name: str, failure: str) -> None:
        if not self._results.get(name):
            self._results[name] = failure

    def _format_failures(self) -> None:
        """After the first downgrade no call fails for a format the server lacks."""
        failed = [
            e
            for e in self.events
            if e.get("outcome") in ("fallback", "error")
            and any(word in str(e.get("error", "")) for word in _FORMAT_WORDS)
        ]
        self._set("no call fails for a format", f"{len(failed)} call(s) did" if failed else "")

    def _refused_retries(self) -> None:
        retried = [
            e
            for e in self.events
            if str(e.get("error", "")).startswith("LLMRequestRejected") and e.get("retries")
        ]
        self._set("no refused request retried", f"{len(retried)} were" if retried else "")

    def not_emptier(self, member: str, live: str, offline: str) -> None:
        """`memory show` holds at least what the offline provider's does."""
        failure = f"{member}: empty, offline had {offline[:80]!r}" if offline and not live else ""
        self._set(f"memory of {member} no emptier than offline", failure)

    def whois_names(self, answer: str, fact: str) -> None:
        failure = "" if fact.casefold() in answer.casefold() else f"said {answer[:120]!r}"
        self._set("whois names the stored facts", failure)

    def model_replied(self) -> None:
        """A console reply carries the model's own answer (not degraded, not a fallback)."""
        replies = [e for e in self.events if e.get("purpose") == "reply"]
        ok = sum(1 for e in replies if e.get("outcome") == "ok" and e.get("provider") != "offline")
        degraded = sum(1 for e in replies if e.get("outcome") == "degraded")
        failure = "" if ok > degraded else f"{ok} model replies, {degraded} replaced"
        self._set("a reply carries the model's own answer", failure)

    def answered(self, what: str, answers: list[str]) -> None:
        failure = "" if answers and all(a.strip() for a in answers) else "nothing came back"
        self._set(f"{what} answered", failure)

    def results(self) -> list[tuple[str, bool]]:
        return [(name, bool(failure)) for name, failure in self._results.items()]

    def failed(self) -> bool:
        return any(failure for failure in self._results.values())

    def lines(self) -> list[str]:
        return [
            f"{'FAIL' if failure else 'ok  '}  {name}{': ' + failure if failure else ''}"
            for name, failure in self._results.items()
        ]
