"""The program's entry points run on uvloop when it is installed (it is a dependency on Linux)."""

from __future__ import annotations

import asyncio

import uvloop

from memory.core import event_loop


def test_run_runs_the_coroutine_on_uvloop() -> None:
    async def loop_kind() -> type:
        return type(asyncio.get_running_loop())

    assert issubclass(event_loop.run(loop_kind()), uvloop.Loop)


async def test_the_tests_run_on_the_programs_loop() -> None:
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
