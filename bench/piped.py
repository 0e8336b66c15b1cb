"""A fake run in a spawned process of its own, asked over a pipe, so its CPU is neither queued
on the measured bot's event loop nor counted in its time (bench/reply_fake.py's timed Discord,
bench/fleet_gateway.py's fleet). A call goes as (what, args, options) and comes back as
(True, value) or (False, the error as text)."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

Answer = Callable[[str, tuple[Any, ...], dict[str, Any]], Awaitable[Any]]


class PipedChild:
    """`target(pipe, *args)` in a spawned process; `call` asks it, `stop` ends it."""

    def __init__(self, target: Callable[..., None], *args: Any, name: str) -> None:
        self._target = target
        self._args = args
        self._name = name
        self._pipe: Connection | None = None
        self._process: BaseProcess | None = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(target=self._target, args=(child, *self._args), daemon=True)
        self._process.start()

    async def call(self, what: str, *args: Any, **options: Any) -> Any:
        assert self._pipe is not None
        self._pipe.send((what, args, options))
        ok, value = await asyncio.to_thread(self._pipe.recv)
        if not ok:
            raise RuntimeError(f"{self._name} failed on {what}: {value}")
        return value

    async def stop(self) -> None:
        """Asks the child to stop, then waits for it (killed after ten seconds)."""
        if self._process is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.call("stop"), 10)
        await asyncio.to_thread(self._process.join, 10)
        if self._process.is_alive():
            self._process.kill()


async def answer_calls(pipe: Connection, answer: Answer) -> None:
    """In the child: answer the parent's calls with `answer` until it asks to "stop"."""
    while True:
        what, args, options = await asyncio.to_thread(pipe.recv)
        if what == "stop":
            pipe.send((True, None))
            return
        try:
            value = await answer(what, args, options)
        except Exception as exc:  # the parent reports it
            pipe.send((False, f"{type(exc).__name__}: {exc}"))
        else:
            pipe.send((True, value))
