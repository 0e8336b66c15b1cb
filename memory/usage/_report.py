"""`memorybot usage`: calls, failed attempts and tokens per day, purpose and model, with an
estimated cost; then the failed attempts by error class and the degraded answers by reason."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from db.usage import UNANSWERED, UsageRow
from memory.core.prices import Prices

_WHERE = 11 + 19 + 28  # the day, purpose and model columns


@dataclass
class _Line:
    """One (day, purpose, provider, model): answered calls and their tokens, failed attempts."""

    calls: int = 0
    failed: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated_in: int = 0
    estimated_out: int = 0
    estimated: bool = False

    def add(self, row: UsageRow) -> None:
        if row.outcome in UNANSWERED:
            self.failed += row.calls
        if row.outcome != "ok":
            return
        self.calls += row.calls
        if row.estimated:
            self.estimated = True
            self.estimated_in += row.input_tokens
            self.estimated_out += row.output_tokens
        else:
            self.tokens_in += row.input_tokens
            self.tokens_out += row.output_tokens

    def absorb(self, other: _Line) -> None:
        self.calls += other.calls
        self.failed += other.failed
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.estimated_in += other.estimated_in
        self.estimated_out += other.estimated_out


def render_usage(rows: Sequence[UsageRow], prices: Prices, *, first_day: date, scope: str) -> str:
    """A plain table, one line per (day, purpose, provider, model), the totals, then what the
    attempts without an answer failed on and why answers were degraded."""
    lines_by_key: dict[tuple[date, str, str, str], _Line] = defaultdict(_Line)
    for row in rows:
        lines_by_key[(row.day, row.purpose, row.provider, row.model)].add(row)
    lines = [f"LLM usage since {first_day.isoformat()} (UTC days), {scope}"]
    if not lines_by_key:
        lines.append("no LLM calls recorded")
        return "\n".join(lines)
    header = f"{'day':<11}{'purpose':<19}{'model':<28}{'calls':>6}{'failed':>7}{'input':>10}"
    lines.append(header + f"{'output':>9}{'est. cost':>11}")
    total = _Line()
    cost_total = 0.0
    unpriced: set[str] = set()
    for (day, purpose, provider, model), line in sorted(lines_by_key.items()):
        # Attempts without an answer: what they cost is not known (a server reports nothing).
        cost = prices.cost(provider, model, line.tokens_in, line.tokens_out) if line.calls else None
        if cost is None and line.calls:
            unpriced.add(model)
        cost_total += cost or 0.0
        shown_model = model if provider != "offline" else "offline"
        tokens_in = _tokens(line.tokens_in + line.estimated_in, line.estimated)
        tokens_out = _tokens(line.tokens_out + line.estimated_out, line.estimated)
        lines.append(
            f"{day.isoformat():<11}{purpose:<19}{shown_model[:27]:<28}{line.calls:>6,}"
            f"{line.failed:>7,}{tokens_in:>10}{tokens_out:>9}{_money(cost):>11}"
        )
        total.absorb(line)
    lines.append(
        f"{'total':<{_WHERE}}{total.calls:>6,}{total.failed:>7,}{total.tokens_in:>10,}"
        f"{total.tokens_out:>9,}{_money(cost_total):>11}"
    )
    if total.estimated_in or total.estimated_out:
        lines.append(
            f"~: our estimate of the offline provider's tokens (not billed, not in the total):"
            f" ~{total.estimated_in:,} in, ~{total.estimated_out:,} out"
        )
    if unpriced:
        lines.append(
            f"no price for {', '.join(sorted(unpriced))}: not in the total (set LLM_PRICES)"
        )
    return "\n".join(lines + _attempts(rows))


def _attempts(rows: Sequence[UsageRow]) -> list[str]:
    """Failed attempts by outcome and error class, degraded answers by reason."""
    counts: dict[tuple[date, str, str, str, str], int] = defaultdict(int)
    for row in rows:
        if row.outcome != "ok":
            model = row.model if row.provider != "offline" else "offline"
            key = (row.day, row.purpose, model, row.outcome, row.error_class or "-")
            counts[key] += row.calls
    if not counts:
        return []
    lines = [
        "attempts without an answer, and answers replaced by the offline result (degraded):",
        f"{'day':<11}{'purpose':<19}{'model':<28}{'outcome':<11}{'error or reason':<24}"
        f"{'count':>6}",
    ]
    for (day, purpose, model, outcome, why), count in sorted(counts.items()):
        lines.append(
            f"{day.isoformat():<11}{purpose:<19}{model[:27]:<28}{outcome:<11}{why[:23]:<24}"
            f"{count:>6,}"
        )
    lines.append(
        "(retried: a later try answered; fallback: the next provider did; error: none did;"
        " cancelled: not waited for)"
    )
    return lines


def _tokens(value: int, estimated: bool) -> str:
    return f"~{value:,}" if estimated else f"{value:,}"


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"
