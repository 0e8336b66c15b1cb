"""The house as it stood at the commits docs/design.md tells its story by (issue 44: the figures
of that story were typed by hand, and one was wrong): the house bench's reading of the tree at
each commit, taken from git.

    python -m bench.house_history [--write-docs]

Each commit's tree is read with `git archive` into a temporary folder; reported per commit
(`at`, and the `moment` design.md names it by): rooms, floors, arrows, import circles (groups of
rooms that import each other, however indirectly) and the modules lying flat in `memory/`.
`--write-docs` keeps them in docs/figures/house_history.jsonl and renders docs/performance.md
again. Needs the project's git history (a shallow clone lacks the commits and says so).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import docs, house
from bench.report import Reporter

BENCH = "house_history"
# (commit, the moment docs/design.md names it by), oldest first.
MOMENTS = (
    ("ccf90cd", "wave 1, the last flat memory/"),
    ("7cbc01e", "issue 35 filed"),
    ("8596ad9", "before the ports"),
    ("48eaa77", "after issue 35"),
    ("7274d3d", "db/ reads memory/language/"),
)


def circles(rooms: Sequence[str], arrows: set[tuple[str, str]]) -> list[list[str]]:
    """Groups of two or more rooms that reach each other through arrows (each sorted)."""
    reach = {room: {b for a, b in arrows if a == room} for room in rooms}
    changed = True
    while changed:  # transitive closure: a few dozen rooms
        changed = False
        for room in rooms:
            further = set().union(*(reach[other] for other in reach[room])) - reach[room]
            if further:
                reach[room] |= further
                changed = True
    groups = {
        tuple(sorted({room} | {other for other in reach[room] if room in reach[other]}))
        for room in rooms
        if room in reach[room]
    }
    return sorted(list(group) for group in groups)


Reading = tuple[dict[str, int], set[tuple[str, str]], dict[str, int]]


def read_at(commit: str) -> Reading:
    """The house bench's reading of the tree at `commit`: lines per room, arrows, and the
    lines of each module lying flat in memory/ (its package face aside)."""
    tree = subprocess.run(
        ["git", "archive", commit, *house.TOPS],
        cwd=house.ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory(prefix="house-") as folder:
        with tarfile.open(fileobj=io.BytesIO(tree)) as archive:
            archive.extractall(folder, filter="data")
        lines, arrows, files = house.read_house(Path(folder))
    flat = {
        path: count
        for path, count in files.items()
        if path.count("/") == 1 and path.startswith("memory/") and not path.endswith("__init__.py")
    }
    return lines, arrows, flat


def run(report: Reporter, moments: Sequence[tuple[str, str]] = MOMENTS) -> None:
    """Each moment's reading, as figures."""
    for commit, moment in moments:
        lines, arrows, flat = read_at(commit)
        rooms = sorted(lines)
        floor, _circled = house.floors(rooms, arrows)
        found = circles(rooms, arrows)
        said = {"at": commit, "moment": moment}
        report(BENCH, "rooms", len(rooms), "", **said)
        report(BENCH, "floors", max(floor.values(), default=0), "", **said)
        report(BENCH, "arrows", len(arrows), "", **said)
        report(BENCH, "circles", len(found), "", rooms=" / ".join(map(" <-> ".join, found)), **said)
        report(BENCH, "memory_flat_modules", len(flat), "modules", **said)
        if flat:
            longest = max(flat, key=lambda path: (flat[path], path))
            report(BENCH, "memory_flat_longest", flat[longest], "lines", module=longest, **said)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-docs", action="store_true", help="keep them in docs/figures")
    args = parser.parse_args(argv)
    report = Reporter()
    try:
        run(report)
    except subprocess.CalledProcessError as error:
        print(f"house_history: git has not these commits ({error.stderr.decode().strip()})")
        return 1
    if args.write_docs:
        from bench.__main__ import BENCHES, ON_REQUEST
        from bench.targets import TARGETS

        docs.write_docs(report.figures, [BENCH], TARGETS, (*BENCHES, *ON_REQUEST))
    return 0


if __name__ == "__main__":
    sys.exit(main())
