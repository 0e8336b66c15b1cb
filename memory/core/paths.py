"""Where memorybot keeps its data, logs and `.env`: one fixed place per user, or the project.

Run from the project directory (a `pyproject.toml` naming memorybot, or an existing `.data/`),
everything stays there as before: `.data/`, `logs/`, `.env`. Run from anywhere else, the same
per-user place is used every time (`$XDG_DATA_HOME/memorybot`, logs under it, settings in
`$XDG_CONFIG_HOME/memorybot/.env`), so a command started in another directory never quietly
creates a second, empty database. Explicit DATA_DIR/LOG_DIR win; relative ones are taken from
that base, not from wherever the command happens to run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

APP = "memorybot"
PROJECT_DATA = ".data"
PROJECT_LOGS = "logs"
ENV_FILE = ".env"
CONTAINER_FLAG = "MEMORYBOT_IN_CONTAINER"

_PROJECT_NAME = re.compile(r'^\s*name\s*=\s*["\']memorybot["\']\s*$', re.MULTILINE)


@dataclass(frozen=True)
class Locations:
    """The directories a process uses and why; start-up reports them."""

    mode: Literal["project", "user"]
    base: Path  # relative DATA_DIR/LOG_DIR are taken from here
    data_dir: Path
    log_dir: Path
    env_file: Path

    def resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else self.base / path

    def describe(self) -> str:
        where = "the project directory" if self.mode == "project" else "the per-user place"
        env = self.env_file if self.env_file.exists() else f"{self.env_file} (not present)"
        return f"{env} ({where})"


def is_project_dir(directory: Path) -> bool:
    """True for memorybot's own checkout (or a directory that already holds its `.data/`)."""
    if (directory / PROJECT_DATA).is_dir():
        return True
    pyproject = directory / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return False
    return _PROJECT_NAME.search(text) is not None


def _xdg(environ: Mapping[str, str], name: str, fallback: str) -> Path:
    value = environ.get(name, "").strip()
    if value and Path(value).is_absolute():
        return Path(value)
    home = environ.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / fallback


def find_locations(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Locations:
    """Project directory when run from it, else the per-user XDG directories."""
    cwd = Path.cwd() if cwd is None else cwd
    environ = os.environ if environ is None else environ
    if is_project_dir(cwd):
        return Locations(
            mode="project",
            base=cwd,
            data_dir=cwd / PROJECT_DATA,
            log_dir=cwd / PROJECT_LOGS,
            env_file=cwd / ENV_FILE,
        )
    data_home = _xdg(environ, "XDG_DATA_HOME", ".local/share") / APP
    config_home = _xdg(environ, "XDG_CONFIG_HOME", ".config") / APP
    return Locations(
        mode="user",
        base=data_home,
        data_dir=data_home,
        log_dir=data_home / PROJECT_LOGS,
        env_file=config_home / ENV_FILE,
    )


def in_container(environ: Mapping[str, str] | None = None) -> bool:
    """MEMORYBOT_IN_CONTAINER=1, which our image sets. Docker's `/.dockerenv` is not taken as a
    sign: development containers and CI machines have it too, and `make run` must keep working
    there with its embedded database."""
    environ = os.environ if environ is None else environ
    return environ.get(CONTAINER_FLAG, "").strip().lower() in ("1", "true", "yes")
