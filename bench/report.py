"""How every benchmark reports: one JSON object per line with bench, metric, value and unit,
plus the parameters the figure was measured under, so `python -m bench` output can be grepped,
diffed between runs and turned into docs/performance.md without parsing prose.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from typing import Any, TextIO

_log = logging.getLogger(__name__)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values); `fraction` in [0, 1]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def share(values: Sequence[bool]) -> float | None:
    """The fraction of `values` that are true (None for no values: nothing was measured)."""
    return sum(values) / len(values) if values else None


def figure(
    bench: str, metric: str, value: float | int | str | None, unit: str, **params: Any
) -> dict[str, Any]:
    """One figure as a JSON-friendly dict (floats rounded so lines stay readable)."""
    if isinstance(value, float):
        value = round(value, 4 if abs(value) < 1 else 2)
    return {"bench": bench, "metric": metric, "value": value, "unit": unit, **params}


class Reporter:
    """Prints figures as JSON lines and keeps them, so callers (tests, __main__) can check."""

    def __init__(self, out: TextIO | None = None) -> None:
        self._out = out
        self.figures: list[dict[str, Any]] = []

    def __call__(
        self, bench: str, metric: str, value: float | int | str | None, unit: str, **params: Any
    ) -> dict[str, Any]:
        line = figure(bench, metric, value, unit, **params)
        self.figures.append(line)
        print(json.dumps(line, ensure_ascii=False), file=self._out or sys.stdout, flush=True)
        return line

    def value(self, bench: str, metric: str, **params: Any) -> Any:
        """The value of the last figure matching bench, metric and the given parameters."""
        for line in reversed(self.figures):
            if line["bench"] != bench or line["metric"] != metric:
                continue
            if all(line.get(key) == wanted for key, wanted in params.items()):
                return line["value"]
        raise KeyError(f"no figure {bench}/{metric} {params}")
