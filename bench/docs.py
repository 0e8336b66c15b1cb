"""`python -m bench [--only ...] --write-docs`: today's figures in docs/performance.md, written
by the benches themselves, never typed by hand.

A run keeps the figures of each bench it ran in `docs/figures/<bench>.jsonl`, its first line
saying when, on which commit and machine they were measured. The generated part of
docs/performance.md (between its two markers) is rendered from every stored file: one table of
every target (value, target, met, when measured), then one table per bench. A bench that was
not run keeps its last figures and its date, so a partial run updates only what it measured.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.table import fmt

_log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
DOC = ROOT / "docs" / "performance.md"
START = "<!-- figures:start: written by `python -m bench --write-docs`, do not edit -->"
END = "<!-- figures:end -->"
_FIXED = ("bench", "metric", "value", "unit")
# (bench, metric, parameters to match, target, "max" or "min"), as bench/targets.py has them.
Target = tuple[str, str, dict[str, Any], float, str]


def run_info() -> dict[str, Any]:
    """When and where the figures were measured."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def save(
    figures: Sequence[dict[str, Any]],
    benches: Iterable[str],
    info: dict[str, Any],
    folder: Path = FIGURES,
) -> None:
    """Keep each bench's figures of this run, replacing what it had stored."""
    folder.mkdir(parents=True, exist_ok=True)
    for bench in benches:
        mine = [
            item
            for item in figures
            if item["bench"] == bench or (item["bench"] == "run" and item.get("of") == bench)
        ]
        if not mine:
            continue
        lines = [json.dumps({"run": info})] + [
            json.dumps(item, ensure_ascii=False) for item in mine
        ]
        (folder / f"{bench}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


Stored = dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]


def load(folder: Path = FIGURES) -> Stored:
    """Every stored bench: (its run info, its figures), by bench name."""
    stored = {}
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        if rows and "run" in rows[0]:
            stored[path.stem] = (rows[0]["run"], rows[1:])
    return stored


def _matching(figures: list[dict[str, Any]], metric: str, params: dict[str, Any]) -> Any:
    for item in reversed(figures):
        if item["metric"] == metric and all(item.get(k) == v for k, v in params.items()):
            return item["value"]
    return None


def targets_table(stored: Stored, targets: Sequence[Target]) -> str:
    rows = [
        "| bench | figure | case | today | target | met | measured |",
        "|---|---|---|---:|---:|:-:|---|",
    ]
    for bench, metric, params, target, kind in targets:
        info, figures = stored.get(bench, ({}, []))
        value = _matching(figures, metric, params)
        case = ", ".join(f"{k}={v}" for k, v in params.items())
        bound = f"{'≤' if kind == 'max' else '≥'} {fmt(target)}"
        if value is None:
            rows.append(f"| {bench} | {metric} | {case} | not measured | {bound} | | |")
            continue
        met = value <= target if kind == "max" else value >= target
        when = f"{info.get('measured', '?')}, `{info.get('commit', '?')}`"
        verdict = "yes" if met else "**no**"
        rows.append(
            f"| {bench} | {metric} | {case} | {fmt(value)} | {bound} | {verdict} | {when} |"
        )
    return "\n".join(rows)


def bench_table(figures: list[dict[str, Any]]) -> str:
    """One bench's figures: parameters shared by all of them said once above the table, the
    ones that vary as columns."""
    keys: list[str] = []
    for item in figures:
        keys += [key for key in item if key not in _FIXED and key not in keys]
    shared = {
        key: figures[0].get(key)
        for key in keys
        if all(key in item and item[key] == figures[0][key] for item in figures)
    }
    varying = [key for key in keys if key not in shared]
    header = ["figure", *varying, "value", "unit"]
    rows = [
        "| " + " | ".join(header) + " |",
        "|---|" + "---|" * len(varying) + "---:|---|",
    ]
    for item in figures:
        cells = [item["metric"], *(fmt(item.get(key, "")) for key in varying)]
        cells += [fmt(item["value"]), str(item.get("unit", ""))]
        rows.append("| " + " | ".join(cells) + " |")
    said = ", ".join(f"{key}={fmt(value)}" for key, value in shared.items())
    return (f"Measured with {said}.\n\n" if said else "") + "\n".join(rows)


def render(stored: Stored, targets: Sequence[Target], order: Sequence[str]) -> str:
    """The generated part of docs/performance.md."""
    parts = [START, "", "## Targets: today's figures", "", targets_table(stored, targets)]
    for bench in [*order, *sorted(set(stored) - set(order))]:
        if bench not in stored:
            continue
        info, figures = stored[bench]
        when = f"{info.get('measured', '?')} on `{info.get('commit', '?')}`"
        machine = f"{info.get('cpus', '?')} CPUs, Python {info.get('python', '?')}"
        parts += ["", f"## {bench}", "", f"Measured {when} ({machine}).", ""]
        parts.append(bench_table(figures))
    parts += ["", END]
    return "\n".join(parts)


def write(text: str, doc: Path = DOC) -> None:
    """Replace the generated part of `doc` (between the markers) with `text`."""
    current = doc.read_text(encoding="utf-8")
    if START not in current or END not in current:
        raise ValueError(f"{doc} has no generated part (markers {START!r} ... {END!r})")
    before = current[: current.index(START)]
    after = current[current.index(END) + len(END) :]
    doc.write_text(before + text + after, encoding="utf-8")


def write_docs(
    figures: Sequence[dict[str, Any]],
    benches: Iterable[str],
    targets: Sequence[Target],
    order: Sequence[str],
    *,
    folder: Path = FIGURES,
    doc: Path = DOC,
) -> None:
    """Store this run's figures, then render `doc` from every stored bench."""
    save(figures, benches, run_info(), folder)
    write(render(load(folder), targets, order), doc)
    _log.info("wrote %s", doc)
