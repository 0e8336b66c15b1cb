"""`memorybot dashboard [--host H] [--port P] [--allow-changes]`: the web dashboard.

Listens on 127.0.0.1 (DASHBOARD_PORT) unless `--host` exposes it deliberately, and prints one
login link with a random token, as Jupyter does; the pages are read-only unless
`--allow-changes`. Runs until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import sys

from bot.cli import open_cli_memory, stop_event
from bot.cli.bounds import whole
from bot.cli.options import Subparsers, command, option
from bot.dashboard import Sessions, running
from memory.core.settings import Settings


def register(subparsers: Subparsers) -> None:
    command(
        subparsers,
        "dashboard",
        handle,
        option(
            "--host",
            default="127.0.0.1",
            help="address to listen on (default 127.0.0.1; anything else exposes it: put it "
            "behind a reverse proxy with TLS)",
        ),
        option("--port", type=whole(0, 65535), default=None, help="port (default DASHBOARD_PORT)"),
        option(
            "--allow-changes",
            action="store_true",
            help="allow admin actions (forget, undo, purge, retry jobs, settings), each confirmed",
        ),
        help="a local web dashboard: usage and activity charts, members' memories, live telemetry",
        description="Serve the dashboard on 127.0.0.1 (DASHBOARD_PORT) and print a login link "
        "with a random token. Read-only unless --allow-changes. Ctrl-C stops it.",
    )


async def handle(args: argparse.Namespace, settings: Settings) -> int:
    port = settings.dashboard_port if args.port is None else args.port
    async with open_cli_memory(settings) as memory:
        stop = stop_event()
        sessions = Sessions()
        async with running(
            memory,
            host=args.host,
            port=port,
            sessions=sessions,
            allow_changes=args.allow_changes,
        ) as link:
            mode = "changes allowed" if args.allow_changes else "read-only"
            print(f"Dashboard ({mode}) at:\n    {link}", flush=True)
            print("Ctrl-C stops it.", file=sys.stderr, flush=True)
            await stop.wait()
    return 0
