"""The shapes every query module reads its answers in, written once: a row as a dataclass,
one column of the rows, how many rows a statement changed."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from db.types import Executor

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    Row = TypeVar("Row", bound=DataclassInstance)
else:
    Row = TypeVar("Row")

_MISSING = object()


def from_row(cls: type[Row], row: asyncpg.Record, **given: Any) -> Row:
    """`cls` from a row whose columns are named as its fields; `given` are the fields the row
    holds otherwise (an array kept as a tuple, a column named differently). A field with a
    default may be missing from the row."""
    values = {name: row.get(name, _MISSING) for name in _field_names(cls) if name not in given}
    kept = {name: value for name, value in values.items() if value is not _MISSING}
    return cls(**kept, **given)


@functools.cache
def _field_names(cls: type[DataclassInstance]) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


async def fetch_as(db: Executor, cls: type[Row], query: str, *args: object) -> list[Row]:
    """Every row of the query as `cls` (see `from_row`)."""
    return [from_row(cls, row) for row in await db.fetch(query, *args)]


async def fetch_one_as(db: Executor, cls: type[Row], query: str, *args: object) -> Row | None:
    """The query's row as `cls` (see `from_row`), None when there is none."""
    row = await db.fetchrow(query, *args)
    return None if row is None else from_row(cls, row)


def by_column(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Non-empty rows' values column by column: the arrays `unnest($1::bigint[], ...)` takes."""
    return [list(values) for values in zip(*rows, strict=True)]


async def fetch_column(db: Executor, query: str, *args: object) -> list[Any]:
    """The first column of every row of the query, in order."""
    return [row[0] for row in await db.fetch(query, *args)]


def changed(status: str) -> int:
    """How many rows a statement changed, from its status (`DELETE 3`, `INSERT 0 2`)."""
    return int(status.split()[-1])


async def execute_counted(db: Executor, query: str, *args: object) -> int:
    """Run a statement; how many rows it changed."""
    return changed(await db.execute(query, *args))
