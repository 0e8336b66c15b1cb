"""The console at a real terminal: Ctrl-C leaves at once and cleanly, as /quit and Ctrl-D do."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_SECONDS = 30.0


def _take_terminal() -> None:
    """In the child, after setsid: make the pty its controlling terminal, so ^C is SIGINT."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A console process behind a pseudo-terminal, read until an expected text appears."""

    def __init__(self, tmp_path: Path) -> None:
        self.master, slave = pty.openpty()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DATA_DIR": str(tmp_path / "data"),
            "LOG_DIR": str(tmp_path / "logs"),
            "TELEMETRY_STDOUT": "false",
            "PYTHONPATH": str(ROOT),
            "HOME": str(tmp_path),
            "MEMORYBOT_IN_CONTAINER": "0",
            "TERM": "dumb",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "console"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=tmp_path,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.output = b""

    def read_until(self, text: bytes, timeout: float = DEADLINE_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{text!r} not seen; output so far: {self.output[-2000:]!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise EOFError(f"{text!r} not seen before exit: {self.output[-2000:]!r}")
                self.output += chunk

    def drain(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0)
            if not ready:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def _server_running(data_dir: Path) -> bool:
    return any(data_dir.rglob("postmaster.pid"))


def test_ctrl_c_at_the_prompt_exits_at_once_and_stops_the_database(
    server_tmp_path: Path,
) -> None:
    terminal = Terminal(server_tmp_path)
    try:
        terminal.read_until(b"guest> ")
        assert _server_running(server_tmp_path / "data")
        os.write(terminal.master, b"\x03")  # the terminal turns ^C into SIGINT
        code = terminal.process.wait(timeout=DEADLINE_SECONDS)  # hung until Enter before
        terminal.drain()
    finally:
        terminal.close()
    assert code == 0, terminal.output[-2000:]
    assert b"Traceback" not in terminal.output
    assert b"bye" in terminal.output
    assert not _server_running(server_tmp_path / "data")


def test_ctrl_c_while_a_line_is_typed_exits_too(server_tmp_path: Path) -> None:
    terminal = Terminal(server_tmp_path)
    try:
        terminal.read_until(b"guest> ")
        os.write(terminal.master, b"alice: half a line")
        os.write(terminal.master, b"\x03")
        code = terminal.process.wait(timeout=DEADLINE_SECONDS)
        terminal.drain()
    finally:
        terminal.close()
    assert code == 0, terminal.output[-2000:]
    assert b"Traceback" not in terminal.output
