"""Counting the face methods of memory/ports that only forward (issue 45.2).

A forwarder is a method whose body (its docstring aside) is one statement handing the call to
another object: `return self._x.y(...)`, `return await self._x.y(...)` or `await self._x.y(...)`.
`python -m tests.memory.ports.face_methods` prints the count per face.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PORTS = Path(__file__).resolve().parents[3] / "memory" / "ports"


def _call_of(statement: ast.stmt) -> ast.Call | None:
    value: ast.expr | None
    if isinstance(statement, ast.Return | ast.Expr):
        value = statement.value
    else:
        return None
    if isinstance(value, ast.Await):
        value = value.value
    return value if isinstance(value, ast.Call) else None


def _forwards(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1:
        return False
    call = _call_of(body[0])
    # Handing on to a collaborator (`self._x.y(...)`): not building a value of its own.
    return (
        call is not None
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Attribute | ast.Name)
        and ast.unparse(call.func.value).startswith("self.")
    )


def face_methods(ports: Path = PORTS) -> Iterator[tuple[str, str, bool]]:
    """(face, method, forwards) for every public method of every class in memory/ports."""
    for path in sorted(ports.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not (
                    item.name.startswith("_")
                ):
                    yield node.name, item.name, _forwards(item)


def forwarders(ports: Path = PORTS) -> list[str]:
    return [f"{face}.{method}" for face, method, forwards in face_methods(ports) if forwards]


if __name__ == "__main__":
    methods = list(face_methods())
    by_face: dict[str, list[int]] = {}
    for face, _, forwards in methods:
        counts = by_face.setdefault(face, [0, 0])
        counts[0] += forwards
        counts[1] += 1
    for face, (forwarding, total) in by_face.items():
        print(f"{face}: {forwarding} of {total} methods forward")
    print(f"all faces: {len(forwarders())} of {len(methods)} methods forward")
