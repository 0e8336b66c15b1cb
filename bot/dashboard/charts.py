"""Charts drawn on the server as inline SVG: no JavaScript library, nothing fetched, and a page
that works offline and on a phone (the SVG scales to its box through its viewBox)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

WIDTH, HEIGHT = 600, 210
LEFT, BOTTOM, TOP = 76, 30, 14
# Series colours, in order (models of a stacked chart).
PALETTE = ("#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#6b7280")


def _number(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def nice_ticks(top: float, *, whole: bool) -> list[float]:
    """0 and about four evenly spaced round values up to at least `top` (1, 2, 2.5 or 5 times
    a power of ten), so the axis reads 0, 50, 100, 150, 200 rather than 0 and 187."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    if whole:
        step = max(1.0, math.ceil(step))
    count = math.ceil(top / step - 1e-9)
    return [step * n for n in range(count + 1)]


def _x_labels(count: int) -> set[int]:
    """Which bars get a label: all of a few, else about seven evenly spread, the last one too."""
    if count <= 8:
        return set(range(count))
    every = math.ceil(count / 7)
    return {*range(0, count, every), count - 1} - {count - 1 - n for n in range(1, every + 1)}


def _x_label(i: int, count: int, step: float, label: str) -> str:
    """Under its bar; the last one kept inside the picture (the first has the y axis's
    margin to spill into)."""
    x, anchor = LEFT + i * step + step / 2, "middle"
    if count > 1 and i == count - 1:
        x, anchor = WIDTH - 4, "end"
    return (
        f'<text x="{x:.1f}" y="{HEIGHT - 6}" text-anchor="{anchor}" class="axis x">'
        f"{escape(label)}</text>"
    )


def stacked_chart(
    title: str,
    labels: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    fmt: Callable[[float], str] = _number,
) -> Markup:
    """Bars per label, stacked by series (one colour each, with a legend); zeros drawn flat;
    a y axis with round ticks and grid lines, x labels spread along the bottom."""
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    whole = all(float(v).is_integer() for values in series.values() for v in values)
    ticks = nice_ticks(max(totals, default=0), whole=whole)
    top = ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - 4, HEIGHT - BOTTOM - TOP
    step = plot_w / max(len(labels), 1)
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in ticks:
        y = TOP + plot_h - tick / top * plot_h
        colour = "#999" if tick == 0 else "#e5e7eb"
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - 4}" y2="{y:.1f}" '
            f'stroke="{colour}"/><text x="{LEFT - 6}" y="{y + 6:.1f}" text-anchor="end" '
            f'class="axis y">{escape(fmt(tick))}</text>'
        )
    shown = _x_labels(len(labels))
    for i, label in enumerate(labels):
        x, base = LEFT + i * step + step * 0.15, float(TOP + plot_h)
        for n, (name, values) in enumerate(series.items()):
            value = values[i]
            if value <= 0:
                continue
            h = value / top * plot_h
            base -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{base:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[n % len(PALETTE)]}"><title>{escape(label)} {escape(name)}: '
                f"{escape(fmt(value))}</title></rect>"
            )
        if i in shown:
            parts.append(_x_label(i, len(labels), step, label))
    parts.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{PALETTE[n % len(PALETTE)]}"></i>'
        f"{escape(name)}</span>"
        for n, name in enumerate(series)
    )
    figure = f'<figure class="chart-box"><figcaption>{escape(title)}</figcaption>'
    figure += "".join(parts)
    if len(series) > 1:
        figure += f'<div class="legend">{legend}</div>'
    return Markup(figure + "</figure>")


def bar_chart(
    title: str, labels: Sequence[str], values: Sequence[float], *, name: str = ""
) -> Markup:
    """One series of bars."""
    return stacked_chart(title, labels, {name or title: values})


def money(value: float) -> str:
    if value == 0:
        return "$0"
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"
