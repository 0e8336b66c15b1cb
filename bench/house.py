"""The house, floor by floor (docs/design.md, issue 35), read from the imports (issue 44: the
drawing was typed by hand and went stale): `python -m bench --only house`.

A room is a folder or a top-level module (`bench/`, `bot/`, `db/`, `prompts/`, and each package
or module of `memory/`; tests are not rooms); an arrow is "imports"; a room stands one floor
above the highest room it uses. Reported: rooms, floors, arrows, arrows running back up and
circles (both 0 when the layering holds), each room's floor and lines, the lines of the wiring's
and the ports' modules, and the longest modules.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from bench.report import Reporter

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("bench", "bot", "db", "prompts", "memory")
LISTED = ("memory/wiring", "memory/ports")  # rooms whose modules the drawing lists
LONGEST = 4


def _room(module: str, root: Path = ROOT) -> str:
    parts = module.split(".")
    if parts[0] == "memory" and len(parts) > 1:
        return f"memory/{parts[1]}/" if (root / "memory" / parts[1]).is_dir() else module
    return f"{parts[0]}/"


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imported(source: str) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [name for name in names if name.split(".")[0] in TOPS]


def read_house(root: Path = ROOT) -> tuple[dict[str, int], set[tuple[str, str]], dict[str, int]]:
    """(lines per room, arrows between rooms, lines per module file) of the tree at `root`."""
    lines: dict[str, int] = defaultdict(int)
    arrows: set[tuple[str, str]] = set()
    files: dict[str, int] = {}
    for module, path in _modules(root).items():
        room, source = _room(module, root), path.read_text(encoding="utf-8")
        files[path.relative_to(root).as_posix()] = len(source.splitlines())
        lines[room] += files[path.relative_to(root).as_posix()]
        used = {_room(name, root) for name in _imported(source)}
        arrows |= {(room, other) for other in used if other != room}
    return dict(lines), arrows, files


def floors(rooms: list[str], arrows: set[tuple[str, str]]) -> tuple[dict[str, int], int]:
    """Each room's floor, and how many rooms sit on a circle (they get no floor)."""
    below = {room: {b for a, b in arrows if a == room} for room in rooms}
    floor: dict[str, int] = {}
    while len(floor) < len(rooms):
        ready = [r for r in rooms if r not in floor and below[r] <= floor.keys()]
        if not ready:
            return floor, len(rooms) - len(floor)
        for room in ready:
            floor[room] = 1 + max((floor[b] for b in below[room]), default=0)
    return floor, 0


def run(report: Reporter) -> dict[str, int]:
    lines, arrows, files = read_house()
    rooms = sorted(lines)
    floor, circled = floors(rooms, arrows)
    up = sum(1 for a, b in arrows if a in floor and b in floor and floor[b] >= floor[a])
    totals = {
        "rooms": len(rooms),
        "floors": max(floor.values(), default=0),
        "arrows": len(arrows),
        "arrows_up": up,
        "rooms_on_circles": circled,
    }
    for metric, value in totals.items():
        report("house", metric, value, "")
    for room in rooms:
        report("house", "room_lines", lines[room], "lines", room=room, floor=floor.get(room, 0))
    for path, count in files.items():
        if path.rsplit("/", 1)[0] in LISTED and not path.endswith("__init__.py"):
            report("house", "module_lines", count, "lines", module=path)
    inside = [p for p in files if p.startswith("memory/")]
    for rank, path in enumerate(sorted(inside, key=lambda p: (-files[p], p))[:LONGEST], 1):
        report("house", "longest_module_lines", files[path], "lines", module=path, rank=rank)
    return totals
