"""The house stays readable: no module over 350 lines and no function over 60, the benchmarks
included (issue 35). A long module is cut along a seam into modules with one job each (a table
of data into a module of its own); a long function is cut into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("memory", "db", "bot", "prompts", "bench", "tests")
MAX_MODULE_LINES = 350
MAX_FUNCTION_LINES = 60


def _sources() -> list[Path]:
    return sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*.py"))


def test_no_module_is_over_350_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _sources()
        if (lines := path.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    }
    assert not long, long


def test_no_function_is_over_60_lines() -> None:
    long = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert not long, long


def test_the_checks_see_the_code() -> None:
    """A rule that reads no file holds nothing."""
    sources = _sources()
    assert any(path.name == "__init__.py" and path.parent.name == "wiring" for path in sources)
    assert any(path.name == "__main__.py" and path.parent.name == "bench" for path in sources)
    assert len(sources) > 300
