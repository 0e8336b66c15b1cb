"""Reading docs/figures for the doc tests: the one stored figure of a bench, and a doc's
sentence that must quote it (tests/bench/test_doc_figures.py)."""

from __future__ import annotations

from typing import Any

from bench.docs import load
from tests.doc_support import doc as _doc


def stored_figure(bench: str, metric: str, **params: object) -> dict[str, Any]:
    """The one stored figure of `bench` named `metric` measured under `params`."""
    _run, figures = load()[bench]
    found = [
        item
        for item in figures
        if item["metric"] == metric and all(item.get(k) == v for k, v in params.items())
    ]
    assert len(found) == 1, f"{bench} {metric} {params}: {len(found)} figures"
    return found[0]


def value_of(bench: str, metric: str, **params: object) -> float:
    return float(stored_figure(bench, metric, **params)["value"])


def measured_under(bench: str, metric: str, key: str, **params: object) -> int | float:
    """A parameter the one figure `metric` of `bench` (under `params`) was measured under."""
    value = stored_figure(bench, metric, **params)[key]
    assert isinstance(value, int | float), f"{bench} {metric} {key}: {value!r} is not a number"
    return value


def says(sentence: str, doc: str) -> None:
    assert sentence in _doc(doc), f"{doc} should say: {sentence!r}"
