"""docs/design.md's drawing of the house, rendered from the house bench's stored figures
(docs/figures/house.jsonl) by `python -m bench --only house --write-docs`, between markers no
one edits by hand (tests/bench/test_house.py holds the page to the figures, and the figures to
the imports).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.house import LISTED

DESIGN = Path(__file__).resolve().parent.parent / "docs" / "design.md"
START = "<!-- house:start: written by `python -m bench --only house --write-docs`, do not edit -->"
END = "<!-- house:end -->"
ROLES = {
    "bench/": "the benchmarks",
    "bot/": "the Discord adapter, the console, the CLI, the dashboard",
    "db/": "the queries",
    "prompts/": "prompt templates",
    "memory/": "the package's face",
    "memory/commands/": "member commands",
    "memory/context/": "a member's context",
    "memory/core/": "the kernel",
    "memory/database/": "the configured database",
    "memory/episodes/": "episodes and digests",
    "memory/facts/": "factual memory",
    "memory/guilds/": "guild settings",
    "memory/ingest/": "writes",
    "memory/jobs/": "the job queue",
    "memory/language/": "the English memory reads",
    "memory/llm/": "LLM providers",
    "memory/members/": "the member directory",
    "memory/privacy/": "privacy",
    "memory/recall/": "recall",
    "memory/replies/": "the reply prompt and the channel window",
    "memory/summaries/": "summaries",
    "memory/telemetry/": "telemetry sinks",
    "memory/usage/": "usage",
    "memory/views/": "the dashboard's reads",
}


def _lines(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def _value(figures: list[dict[str, Any]], metric: str) -> Any:
    return next(item["value"] for item in figures if item["metric"] == metric)


def _holds(room: str, figures: list[dict[str, Any]]) -> str:
    if room.rstrip("/") in LISTED:
        modules = [f for f in figures if f["metric"] == "module_lines"]
        mine = [f for f in modules if f["module"].rsplit("/", 1)[0] == room.rstrip("/")]
        mine.sort(key=lambda f: (-f["value"], f["module"]))
        return ", ".join(f"`{f['module'].rsplit('/', 1)[1]}` {f['value']}" for f in mine)
    return ROLES.get(room, "")


def render(run: dict[str, Any], figures: list[dict[str, Any]]) -> str:
    """The block between the markers: the headline, the table, the longest modules."""
    rooms = [f for f in figures if f["metric"] == "room_lines"]
    by_floor: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for room in sorted(rooms, key=lambda f: f["room"]):
        by_floor[room["floor"]].append(room)
    up, circled = _value(figures, "arrows_up"), _value(figures, "rooms_on_circles")
    lines = [
        START,
        f"Read from the imports by `bench/house.py` ({run.get('measured')}, "
        f"`{run.get('commit')}`): **{_value(figures, 'rooms')} rooms on "
        f"{_value(figures, 'floors')} floors, {_value(figures, 'arrows')} arrows, "
        f"{up or 'none'} running back up, "
        f"{f'{circled} rooms on circles' if circled else 'no circle'}**.",
        "",
        "| floor | room (lines) | what it holds |",
        "|---|---|---|",
    ]
    for floor in sorted(by_floor, reverse=True):
        row = by_floor[floor]
        names = ", ".join(f"`{r['room']}` ({_lines(r['value'])})" for r in row)
        holds = "; ".join(filter(None, (_holds(r["room"], figures) for r in row)))
        lines.append(f"| {floor} | {names} | {holds} |")
    longest = sorted(
        (f for f in figures if f["metric"] == "longest_module_lines"), key=lambda f: f["rank"]
    )
    said = ", ".join(f"`{f['module']}` {f['value']}" for f in longest)
    lines += ["", f"The longest modules of `memory/`: {said}.", END]
    return "\n".join(lines)


def write(run: dict[str, Any], figures: list[dict[str, Any]], doc: Path = DESIGN) -> None:
    """Replace the block between the markers of `doc`."""
    text = doc.read_text(encoding="utf-8")
    block = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
    if not block.search(text):
        raise ValueError(f"{doc} has no house markers")
    doc.write_text(block.sub(lambda _: render(run, figures), text, count=1), encoding="utf-8")


def current(doc: Path = DESIGN) -> str:
    """The block as the page holds it now."""
    text = doc.read_text(encoding="utf-8")
    return text[text.index(START) : text.index(END) + len(END)]
