"""`memorybot jobs [retry]`: what the background job queue holds, and retrying held jobs.

A job that failed JOB_MAX_ATTEMPTS times is held (status `failed`) instead of retrying forever;
this shows it with its last error, and `retry` queues every held job again at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from bot.cli import open_cli_memory, program
from bot.cli.options import Subparsers, command, option
from memory.core.settings import Settings


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "jobs",
        handle,
        option("action", nargs="?", choices=["show", "retry"], default="show"),
        help="show the background job queue (waiting, running, held after failing)",
        description="Jobs waiting or running per kind, and jobs held after JOB_MAX_ATTEMPTS "
        "failures with their last error. `jobs retry` queues every held job again now.",
    )


async def handle(args: argparse.Namespace, settings: Settings, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up per call, so a redirected stdout is honoured
    async with open_cli_memory(settings) as memory:
        if args.action == "retry":
            count = await memory.worker.queue.retry_held()
            print(f"queued {count} held jobs again", file=out)
            return 0
        sizes = [
            job for job in await memory.worker.queue.sizes() if job.status in ("queued", "picked")
        ]
        if not sizes:
            print("queue: nothing waiting or running", file=out)
        for job in sizes:
            state = "running" if job.status == "picked" else "waiting"
            print(f"queue: {job.entrypoint} {state}: {job.count}", file=out)
        held = await memory.worker.queue.held()
        print(f"held after failing: {len(held)}", file=out)
        for held_job in held:
            print(f"  {held_job.describe()}", file=out)
        if held:
            print(f"`{program()} jobs retry` queues them again", file=out)
    return 0
