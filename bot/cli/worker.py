"""`memorybot worker`: background jobs only (closing days, retention), no Discord connection.

Any number of workers share the PostgreSQL job queue with the bots' in-process workers: each job
runs once, and a job whose worker was killed is picked up by another. Runs until Ctrl-C or
SIGTERM; a job still running then is left to the next worker.
"""

from __future__ import annotations

import argparse
import logging

from bot.cli import stop_event
from bot.cli.options import Subparsers, command
from memory.core.clock import SystemClock
from memory.core.settings import Settings
from memory.wiring import open_memory

_log = logging.getLogger(__name__)


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "worker",
        handle,
        help="run background jobs (closing days, retention) from the job queue, no Discord",
        description="Take jobs from the PostgreSQL job queue until Ctrl-C or SIGTERM. "
        "`memorybot run` runs one too unless RUN_WORKER=false.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    stop = stop_event()
    async with open_memory(settings, clock=SystemClock()) as memory:
        memory.worker.start()
        _log.info("worker started: taking jobs from the queue until stopped")
        await stop.wait()
        _log.info("stopping: running jobs get a few seconds, then go back to the queue")
    return 0
