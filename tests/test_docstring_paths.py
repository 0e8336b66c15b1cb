"""Docstrings and comments that name a module name one that exists: a reader who follows
`memory.text.restates` to a file that was renamed away has been sent nowhere."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from memory.wiring import Memory

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("memory", "bot", "db", "prompts", "bench")
# `memory.text.restates`, `db.summaries` (a variable `memory` holding the services is not a
# module: `memory.reports.summarize_day` names one of its attributes).
DOTTED = re.compile(r"(?<![\w.])((?:memory|db|prompts)(?:\.[a-z_][a-z0-9_]*)+)")
# `memory/summaries/_notes.py`, `db/jobs.due_days`.
SLASHED = re.compile(r"(?<![\w./])((?:memory|bot|db|prompts|bench|docs)/[\w/]+)(\.\w+)?")
SERVICES = {field.name for field in dataclasses.fields(Memory)}


def _prose(source: str) -> Iterator[str]:
    """Every docstring and comment of a module."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                yield docstring
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.string


def _module_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] == "memory" and parts[1] in SERVICES:
        return True
    for length in range(len(parts), 1, -1):
        path = ROOT.joinpath(*parts[:length])
        if path.with_suffix(".py").exists() or (path / "__init__.py").exists():
            return True
    return False


def _path_exists(path: str, suffix: str | None) -> bool:
    """`db/jobs.due_days` names db/jobs.py; `docs/llm.md` the file itself."""
    return any((ROOT / f"{path}{end}").exists() for end in ("", suffix or "", ".py"))


def test_named_modules_exist() -> None:
    missing = []
    for package in PACKAGES:
        for file in sorted((ROOT / package).rglob("*.py")):
            for text in _prose(file.read_text(encoding="utf-8")):
                where = file.relative_to(ROOT)
                missing += [
                    f"{where}: {m[1]}" for m in DOTTED.finditer(text) if not _module_exists(m[1])
                ]
                missing += [
                    f"{where}: {m[1]}"
                    for m in SLASHED.finditer(text)
                    if not _path_exists(m[1], m[2])
                ]
    assert missing == []
