"""How every entry point runs its event loop: on uvloop where it is installed.

A burst of replies is bound by the CPU of one process, and most of that CPU is the event
loop's own work (callbacks, timers, sockets for asyncpg, aiohttp and the gateway). uvloop does
that work in C: the 100-replies-at-once bench spends about a tenth less CPU on it
(docs/performance.md). Where uvloop is missing (Windows), the standard loop runs the same code.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

_log = logging.getLogger(__name__)

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on uvloop when it can be imported."""
    try:
        import uvloop
    except ImportError:
        _log.debug("uvloop is not installed: running on the standard event loop")
        return asyncio.run(main)
    return uvloop.run(main)


def loop_policy() -> asyncio.AbstractEventLoopPolicy:
    """The policy `run` uses, for runners that create their loops themselves (the tests)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.DefaultEventLoopPolicy()
    policy: asyncio.AbstractEventLoopPolicy = uvloop.EventLoopPolicy()
    return policy
