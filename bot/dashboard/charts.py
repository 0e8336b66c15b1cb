"""Charts drawn on the server as inline SVG: no JavaScript library, nothing fetched, and a page
that works offline and on a phone (the SVG scales to its box through its viewBox)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

WIDTH, HEIGHT = 600, 180
LEFT, BOTTOM, TOP = 44, 22, 10
# Series colours, in order (models of a stacked chart).
PALETTE = ("#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#6b7280")


def _number(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def stacked_chart(
    title: str,
    labels: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    fmt: Callable[[float], str] = _number,
) -> Markup:
    """Bars per label, stacked by series (one colour each, with a legend); zeros drawn flat."""
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    top = max(totals, default=0) or 1
    plot_w, plot_h = WIDTH - LEFT - 4, HEIGHT - BOTTOM - TOP
    step = plot_w / max(len(labels), 1)
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - 4}" y2="{TOP + plot_h}" '
        'stroke="#999"/>',
        f'<text x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end" class="axis">{fmt(top)}</text>',
        f'<text x="{LEFT - 4}" y="{TOP + plot_h}" text-anchor="end" class="axis">0</text>',
    ]
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
        if len(labels) <= 10 or i % max(len(labels) // 6, 1) == 0:
            parts.append(
                f'<text x="{LEFT + i * step + step / 2:.1f}" y="{HEIGHT - 6}" '
                f'text-anchor="middle" class="axis">{escape(label)}</text>'
            )
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
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"
