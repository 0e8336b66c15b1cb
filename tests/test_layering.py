"""Dependencies go one way, checked by the import-linter contracts in pyproject.toml:
bot -> wiring -> ports -> capability packages -> llm/telemetry -> db/prompts -> language -> core;
bot/ sees memory only through the ports (the entry points also open it through the wiring);
the ports reach the database only through the capability services, never db/ itself;
memory never imports discord or bot; db imports only the core and the language; a capability
package is used by the others only through its __init__. Planting a forbidden import must break
the check."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "memory", "db", "prompts")
LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports())"


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    """Run the project's contracts on the packages under `tree` (imported from there)."""
    return subprocess.run(
        [sys.executable, "-c", LINT],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and contracts copied aside, so a test can plant an import in them."""
    tree = tmp_path_factory.mktemp("layering")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def test_the_tree_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout and "6 kept" in result.stdout


def _plant(tree: Path, relative: str, line: str) -> None:
    path = tree / relative
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # planted\n", encoding="utf-8")


def test_a_bot_module_importing_db_breaks_the_check(tree_copy: Path) -> None:
    _plant(tree_copy, "bot/cogs/replies.py", "from db import pool")
    result = _lint(tree_copy)
    assert result.returncode != 0
    assert "bot/ uses memory only through the ports" in result.stdout
    assert "bot.cogs.replies -> db.pool" in result.stdout


def test_a_port_querying_the_database_itself_breaks_the_check(tree_copy: Path) -> None:
    _plant(tree_copy, "memory/ports/operations.py", "from db.state import get_state")
    result = _lint(tree_copy)
    assert result.returncode != 0
    assert "The ports reach the database only through the capability services" in result.stdout
    assert "memory.ports.operations -> db.state" in result.stdout


def test_a_cog_reaching_past_the_ports_into_a_service_breaks_the_check(tree_copy: Path) -> None:
    _plant(tree_copy, "bot/cogs/facts.py", "from memory.facts import FactService")
    _plant(tree_copy, "bot/cogs/ingest.py", "from memory.wiring import Memory")
    result = _lint(tree_copy)
    assert result.returncode != 0
    assert "bot.cogs.facts -> memory.facts" in result.stdout
    assert "bot.cogs.ingest -> memory.wiring" in result.stdout


def test_every_memory_package_but_the_ports_is_closed_to_bot_and_db() -> None:
    """A new capability package is forbidden to bot/ (and db/) from the day it exists: the
    contracts name every package of memory/ except the ports (for db/, not even those), the
    core and the language."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (bot_contract,) = [c for c in contracts if c.get("source_modules") == ["bot"]]
    packages = {
        f"memory.{path.name}"
        for path in (ROOT / "memory").iterdir()
        if (path / "__init__.py").exists()
    }
    open_to_bot = {"memory.ports", "memory.core", "memory.language"}
    assert packages - open_to_bot <= set(bot_contract["forbidden_modules"])
    assert open_to_bot <= packages
    (db_contract,) = [c for c in contracts if c.get("source_modules") == ["db"]]
    open_to_db = {"memory.core", "memory.language"}
    assert packages - open_to_db <= set(db_contract["forbidden_modules"])


def test_reaching_into_another_package_breaks_the_check(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    _plant(
        tmp_path, "memory/replies/_window.py", "from memory.facts._fact_service import FactService"
    )
    _plant(tmp_path, "memory/llm/tasks/_tasks.py", "import discord")
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "memory.replies._window -> memory.facts._fact_service" in result.stdout
    assert "memory.llm.tasks._tasks -> discord" in result.stdout
