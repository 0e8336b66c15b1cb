"""docs/operations.md's Citus plan says what the schema and tests/db/citus_plan.py say: its
commands distribute every distributed table once, each after the tables it references, and its
table of coordinator tables is COORDINATOR_TABLES, reasons included (issue 46)."""

from __future__ import annotations

import re
from pathlib import Path

import asyncpg

from tests.db.citus_plan import COLOCATE_WITH, COORDINATOR_TABLES, distributed_tables

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
TITLE = "## Past one PostgreSQL: Citus"
_DISTRIBUTE = re.compile(
    r"create_distributed_table\('([a-z_]+)', 'guild_id'(?:, colocate_with => '([a-z_]+)')?\)"
)
_ROW = re.compile(r"^\| `([a-z_]+)` \| (.+) \|$", re.MULTILINE)


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(TITLE)
    end = text.find("\n## ", start + len(TITLE))
    return text[start : end if end != -1 else len(text)]


async def test_the_commands_distribute_every_table_once_after_what_it_references(
    database_dsn: str,
) -> None:
    connection = await asyncpg.connect(database_dsn)
    try:
        tables = await distributed_tables(connection)
        references = await connection.fetch(
            "SELECT DISTINCT conrelid::regclass::text AS source,"
            " confrelid::regclass::text AS target"
            " FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid"
        )
    finally:
        await connection.close()
    commands = _DISTRIBUTE.findall(_section())
    order = [table for table, _ in commands]
    assert sorted(order) == sorted(tables), "every distributed table, once"
    assert commands[0] == (COLOCATE_WITH, "")
    assert {colocate for _, colocate in commands[1:]} == {COLOCATE_WITH}
    late = [
        f"{row['source']} before {row['target']}"
        for row in references
        if order.index(row["source"]) < order.index(row["target"])
    ]
    assert late == []


def test_the_coordinator_tables_are_the_listed_ones_with_their_reasons() -> None:
    assert dict(_ROW.findall(_section())) == COORDINATOR_TABLES
