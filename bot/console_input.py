"""Lines from the console's stdin without a thread that outlives the console.

Reading with `run_in_executor(sys.stdin.readline)` left a worker thread blocked in `read()`
after Ctrl-C: asyncio waits for its executor on the way out, so the process stayed until
Enter. A terminal or pipe is read through the event loop instead (readable -> one `os.read`),
which a cancelled wait simply stops watching. A regular file (`console < script.txt`) never
blocks, so it is read directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
import sys
from typing import TextIO

_CHUNK = 65536


class LineReader:
    """`await reader.readline()` returns the next line with its newline, '' at end of input."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdin
        self._buffer = b""
        self._eof = False
        self._fd: int | None = None
        with contextlib.suppress(AttributeError, OSError, ValueError):
            fd = self._stream.fileno()
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self._fd = fd

    async def readline(self) -> str:
        if self._fd is None:
            return self._stream.readline()
        while b"\n" not in self._buffer and not self._eof:
            chunk = await self._read_chunk(self._fd)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
        line, newline, rest = self._buffer.partition(b"\n")
        self._buffer = rest
        return (line + newline).decode("utf-8", errors="replace")

    async def _read_chunk(self, fd: int) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def on_readable() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(fd, on_readable)
        except (NotImplementedError, OSError, ValueError):  # not selectable here: block briefly
            return await asyncio.to_thread(os.read, fd, _CHUNK)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            return await self._read_chunk(fd)
        except OSError:  # the terminal went away: as good as end of input
            return b""


def interrupted() -> asyncio.Event:
    """An event Ctrl-C (and SIGTERM, SIGHUP) sets: the console then leaves as /quit does."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
    return stop
