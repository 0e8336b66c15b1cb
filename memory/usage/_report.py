"""`memorybot usage`: calls and tokens per day, purpose and model, with an estimated cost."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from db.usage import UsageRow
from memory.core.prices import Prices


def render_usage(rows: Sequence[UsageRow], prices: Prices, *, first_day: date, scope: str) -> str:
    """A plain table, one line per (day, purpose, provider, model), then the totals."""
    grouped: dict[tuple[date, str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        sums = grouped[(row.day, row.purpose, row.provider, row.model)]
        sums[0] += row.calls
        sums[1] += row.input_tokens
        sums[2] += row.output_tokens
    lines = [f"LLM usage since {first_day.isoformat()} (UTC days), {scope}"]
    if not grouped:
        lines.append("no LLM calls recorded")
        return "\n".join(lines)
    header = f"{'day':<11}{'purpose':<19}{'model':<28}{'calls':>6}{'input':>10}{'output':>9}"
    lines.append(header + f"{'est. cost':>11}")
    total = [0, 0, 0]
    cost_total = 0.0
    unpriced: set[str] = set()
    for (day, purpose, provider, model), (calls, tokens_in, tokens_out) in sorted(grouped.items()):
        cost = prices.cost(provider, model, tokens_in, tokens_out)
        if cost is None:
            unpriced.add(model)
        else:
            cost_total += cost
        shown_model = model if provider != "offline" else "offline"
        lines.append(
            f"{day.isoformat():<11}{purpose:<19}{shown_model[:27]:<28}{calls:>6,}"
            f"{tokens_in:>10,}{tokens_out:>9,}{_money(cost):>11}"
        )
        total = [total[0] + calls, total[1] + tokens_in, total[2] + tokens_out]
    lines.append(
        f"{'total':<58}{total[0]:>6,}{total[1]:>10,}{total[2]:>9,}{_money(cost_total):>11}"
    )
    if unpriced:
        lines.append(
            f"no price for {', '.join(sorted(unpriced))}: not in the total (set LLM_PRICES)"
        )
    return "\n".join(lines)


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"
