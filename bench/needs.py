"""What a run needs from the machine (a browser, the live-model wheel, a dataset): under
`CI=true` a missing one fails the run with one line saying what is missing; elsewhere it is
skipped with one line that says so (issue 44: no silent skips in CI).

The tests' side is `tests.support.needs` (a pytest mark) and `tests.support.require`; a bench
or script calls `require` here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def in_ci() -> bool:
    """CI services (GitHub Actions, GitLab, ...) set CI=true."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing_line(what: str) -> str:
    """The one line: `missing: WHAT` (CI) or `skipped, missing: WHAT` (elsewhere)."""
    return f"missing: {what}" if in_ci() else f"skipped, missing: {what}"


def require(present: bool, what: str) -> bool:
    """For a bench or script: True when `present`; else print the one line and, under CI,
    exit 1 (locally return False, the caller skips)."""
    if present:
        return True
    line = missing_line(what)
    if in_ci():
        raise SystemExit(line)
    print(line, file=sys.stderr)
    return False


def require_file(path: Path, what: str) -> bool:
    """`require` for a file a bench reads (a dataset in ../shared/data, say)."""
    return require(path.exists(), f"{what} ({path})")
