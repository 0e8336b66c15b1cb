"""The SQL of `db/`, read from the source with `ast`: every string constant (or f-string, its
interpolations shown as `{…}` unless they name a module-level string, or such a template's
`.format(...)`) that starts with a statement keyword, with the module and the
function (or module-level name) it belongs to, the tables it names, and whether it is bound to
one guild. On Citus a statement bound to one guild goes to one shard; any other statement over a
distributed table fans out to every shard and must be a listed coordinator query.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HOLE = "{…}"
# Upper case only: docstrings and log text that start with "Select ..." are prose, not SQL.
_STATEMENT = re.compile(r"^\s*(?:--[^\n]*\n\s*)*(WITH|SELECT|INSERT|UPDATE|DELETE)\b")
_TABLE = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|USING)\s+(?:ONLY\s+)?(\{…\}|[a-z_][a-z0-9_]*\b)")
_COLUMN = r"(?:\b[a-z_][a-z0-9_]*\.)?guild_id\b"
_PARAMETER = r"\$\d+(?:::[a-z_\[\]]+)?"
# A guild-id column compared with a parameter (either side, `= ANY(...)`, `IN (...)`), or a
# row of columns led by guild_id compared with a parameter's row.
_BOUND = re.compile(
    rf"{_COLUMN}\s*(?:=|IN)\s*(?:ANY\s*)?\(?\s*{_PARAMETER}"
    rf"|{_PARAMETER}\s*=\s*(?:ANY\s*\(\s*)?{_COLUMN}"
    rf"|{_PARAMETER}\s+AS\s+guild_id\b",
    re.IGNORECASE,
)
_INSERT_COLUMNS = re.compile(
    r"\bINSERT\s+INTO\s+[a-z_][a-z0-9_]*(?:\s+AS\s+[a-z_]+)?\s*\(([^)]*)\)", re.IGNORECASE
)


@dataclass(frozen=True)
class Statement:
    """One SQL statement found in a module of `db/`."""

    module: str
    owner: str
    line: int
    text: str

    @property
    def key(self) -> str:
        """How the coordinator list names it: module and owning function (or constant)."""
        return f"{self.module}:{self.owner}"

    @property
    def tables(self) -> frozenset[str]:
        """The tables (and CTE names, functions like unnest) it reads or writes, lower case."""
        return frozenset(match.lower() for match in _TABLE.findall(self.text))

    @property
    def bound_to_guild(self) -> bool:
        """True when a guild id value routes it: a filter on guild_id by a parameter, or an
        INSERT whose column list names guild_id."""
        if _BOUND.search(self.text):
            return True
        columns = _INSERT_COLUMNS.search(self.text)
        return columns is not None and re.search(r"\bguild_id\b", columns.group(1)) is not None

    @property
    def one_line(self) -> str:
        return " ".join(self.text.split())


def _text(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The SQL text of a node: a string, an f-string whose holes naming a module-level string
    constant are filled in (others stay `{…}`), or such a text's `.format(...)` with string
    keywords filled in."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_part(value, constants) for value in node.values]
        return "".join(parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        template = _text(node.func.value, constants)
        if node.func.attr != "format" or template is None:
            return None
        for keyword in node.keywords:
            value = _text(keyword.value, constants)
            if keyword.arg is not None:
                template = template.replace("{" + keyword.arg + "}", value or HOLE)
        return template
    return None


def _part(value: ast.AST, constants: dict[str, str]) -> str:
    if isinstance(value, ast.Constant):
        return str(value.value)
    inner = value.value if isinstance(value, ast.FormattedValue) else value
    if isinstance(inner, ast.Name) and inner.id in constants:
        return constants[inner.id]
    return HOLE


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to a plain string (column lists, shared fragments)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Constant):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                found[target.id] = node.value.value
    return found


def _owners(tree: ast.Module) -> dict[ast.AST, str]:
    """Every node mapped to the function that holds it, or the module-level name it is
    assigned to (a query kept in a constant)."""
    owners: dict[ast.AST, str] = {}

    def visit(node: ast.AST, owner: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = owner
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            elif isinstance(child, (ast.Assign, ast.AnnAssign)) and owner == "<module>":
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                name = next((t.id for t in targets if isinstance(t, ast.Name)), owner)
            owners[child] = name
            visit(child, name)

    visit(tree, "<module>")
    return owners


def statements_in(module: str, source: str) -> list[Statement]:
    """The SQL statements of one module's source."""
    tree = ast.parse(source)
    owners = _owners(tree)
    constants = _constants(tree)
    inner: set[int] = set()
    found: list[Statement] = []
    for node in ast.walk(tree):  # breadth first: a `.format` call before its template
        if id(node) in inner:
            continue
        text = _text(node, constants)
        if text is None:
            continue
        inner.update(id(child) for child in ast.walk(node) if child is not node)
        if _STATEMENT.match(text):
            owner = owners.get(node, "<module>")
            found.append(Statement(module, owner, getattr(node, "lineno", 0), text))
    return sorted(found, key=lambda statement: statement.line)


def statements_of(folder: Path, root: Path) -> list[Statement]:
    """The SQL statements of every module in `folder`, named relative to `root`."""
    found: list[Statement] = []
    for path in sorted(folder.glob("*.py")):
        module = str(path.relative_to(root))
        found.extend(statements_in(module, path.read_text(encoding="utf-8")))
    return found


def unrouted(
    statements: Iterable[Statement], distributed: Iterable[str], coordinator: Iterable[str]
) -> list[Statement]:
    """Statements over a distributed table (or a table named at run time) that no guild id
    routes and that are not listed (by key) as coordinator queries."""
    tables = set(distributed)
    listed = set(coordinator)
    return [
        statement
        for statement in statements
        if (statement.tables & tables or HOLE in statement.tables)
        and not statement.bound_to_guild
        and statement.key not in listed
    ]
