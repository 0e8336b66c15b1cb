"""Progress for long CLI work (rich, on stderr, only on a terminal) and the one line that says
when a command will call the LLM."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

from bot.banner import memory_chain
from memory.ports import FrontDoor


def _console(stream: TextIO, *, force: bool | None = None) -> Console:
    return Console(file=stream, force_terminal=force, highlight=False, soft_wrap=True)


@contextmanager
def working(text: str, *, stream: TextIO | None = None) -> Iterator[None]:
    """A spinner with the elapsed time while the block runs (nothing when piped)."""
    stream = stream or sys.stderr
    if not stream.isatty():
        yield
        return
    with _console(stream).status(text, spinner="dots"):
        yield


def llm_models(memory: FrontDoor, purposes: tuple[str, ...] = ("merge", "daily_summary")) -> str:
    """`gemini (gemini-2.5-flash-lite), daily_summary: gemini (gemini-2.5-flash)`-style text."""
    chain_for, model_for = memory_chain(memory)
    parts = []
    for purpose in purposes:
        chain = list(chain_for(purpose))
        if not chain:
            continue
        first = chain[0]
        model = model_for(first, purpose)
        parts.append(
            f"{purpose}: {first}" + (f" ({model})" if model and first != "offline" else "")
        )
    return "; ".join(parts)


class ProgressBar:
    """Import progress for one file: bar by bytes read, messages so far, elapsed time."""

    def __init__(
        self,
        label: str,
        total_bytes: int,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        min_interval: float = 0.1,
    ) -> None:
        stream = stream or sys.stderr
        self.enabled = stream.isatty() if enabled is None else enabled
        self._min_interval = min_interval
        self._last = 0.0
        self._progress: Progress | None = None
        if not self.enabled:
            return
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            DownloadColumn(),
            TextColumn("{task.fields[messages]:,} messages"),
            TimeElapsedColumn(),
            console=_console(stream, force=True if enabled else None),
            auto_refresh=False,
        )
        self._task = self._progress.add_task(label, total=max(total_bytes, 1), messages=0)
        self._progress.start()

    def update(self, done_bytes: int, messages: int, *, force: bool = False) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last < self._min_interval:
            return
        self._last = now
        self._progress.update(self._task, completed=done_bytes, messages=messages)
        self._progress.refresh()

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
