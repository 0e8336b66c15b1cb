"""The embedded server runs with buffers sized for its machine, and says so in its config once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest

from db.embedded import EmbeddedPostgres
from db.embedded_settings import (
    MARKER,
    SHARED_BUFFERS_BYTES,
    SHARED_BUFFERS_MAX_MB,
    SHARED_BUFFERS_MIN_MB,
    conf_with_settings,
    machine_memory_bytes,
    shared_buffers_mb,
)
from tests.db.test_embedded import _hold_server, _release_server
from tests.support import fetch_value

GB = 2**30


async def _shared_buffers_bytes(uri: str) -> int:
    return await fetch_value(uri, SHARED_BUFFERS_BYTES)


def test_a_new_embedded_server_runs_with_a_quarter_of_the_memory(server_tmp_path: Path) -> None:
    server = EmbeddedPostgres(server_tmp_path / "pg")
    server.start()
    try:
        wanted = shared_buffers_mb(machine_memory_bytes()) * 2**20
        assert asyncio.run(_shared_buffers_bytes(server.uri())) == wanted
        started = server.pid()
    finally:
        server.stop()
    again = EmbeddedPostgres(server_tmp_path / "pg")
    again.start()
    try:
        conf = (server_tmp_path / "pg" / "postgresql.conf").read_text()
        assert conf.count(MARKER) == 1, "the settings are written once, not on every start"
        assert asyncio.run(_shared_buffers_bytes(again.uri())) == wanted
        assert again.pid() != started
    finally:
        again.stop()


def test_settings_are_not_forced_on_a_server_another_process_uses(server_tmp_path: Path) -> None:
    data_dir = server_tmp_path / "pg"
    holder, postmaster = _hold_server(data_dir)
    try:
        # The settings of a machine with other memory: this one's differ.
        here = machine_memory_bytes()
        elsewhere = 64 * GB if shared_buffers_mb(here) == SHARED_BUFFERS_MIN_MB else 256 * 2**20
        conf = data_dir / "postgresql.conf"
        conf.write_text(conf_with_settings(conf.read_text(), elsewhere) or "")
        server = EmbeddedPostgres(data_dir)
        server.start()
        assert server.pid() == postmaster, "no restart under another process's connections"
        assert conf_with_settings(conf.read_text(), here) is None, "written for the next start"
        server.stop()
    finally:
        _release_server(holder, data_dir)


@pytest.mark.parametrize(
    ("memory", "mb"),
    [(256 * 2**20, SHARED_BUFFERS_MIN_MB), (4 * GB, 1024), (64 * GB, SHARED_BUFFERS_MAX_MB)],
)
def test_shared_buffers_are_a_quarter_within_bounds(memory: int, mb: int) -> None:
    assert shared_buffers_mb(memory) == mb


def test_conf_block_is_written_once_and_replaced_when_the_machine_changes() -> None:
    original = "listen_addresses = ''\nmax_connections = 100\n"
    first = conf_with_settings(original, 4 * GB)
    assert first is not None and "shared_buffers = '1024MB'" in first
    assert first.startswith(original), "the server's own settings stay"
    assert conf_with_settings(first, 4 * GB) is None, "nothing to write: no restart"
    moved = conf_with_settings(first, 8 * GB)
    assert moved is not None
    assert "shared_buffers = '2048MB'" in moved and "1024MB" not in moved
    assert moved.count(MARKER) == 1
    assert conf_with_settings(moved, 4 * GB) == first, "no blank lines pile up"


def test_a_container_limit_below_the_machine_is_what_counts(tmp_path: Path) -> None:
    total = int(psutil.virtual_memory().total)
    limited, unlimited = tmp_path / "memory.max", tmp_path / "unlimited"
    limited.write_text(f"{total // 4}\n")
    unlimited.write_text("max\n")
    assert machine_memory_bytes((unlimited, limited)) == total // 4
    assert machine_memory_bytes((unlimited,)) == total
    assert machine_memory_bytes((tmp_path / "absent",)) == total


def test_settings_the_server_refuses_leave_it_running_as_before(
    server_tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(conf: str, memory: int) -> str:
        return conf + "\nshared_buffers = 'more than there is'\n"

    monkeypatch.setattr("db.embedded.conf_with_settings", refused)
    server = EmbeddedPostgres(server_tmp_path / "pg")
    server.start()
    try:
        assert asyncio.run(_shared_buffers_bytes(server.uri())) == 128 * 2**20
        conf = (server_tmp_path / "pg" / "postgresql.conf").read_text()
        assert "more than there is" not in conf, "the config the server refused is undone"
    finally:
        server.stop()
