"""The fleet's processes: `memorybot run` per shard and `memorybot worker`, started as an admin
would (environment only), each with its own log directory; their resident memory read from
/proc (bench/fleet.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Nothing of the caller's configuration leaks into the fleet (a local .env is not read).
_DROPPED = ("DISCORD_", "LLM_", "OPENAI_", "GEMINI_", "SHARD_", "JOB_", "EMBEDDING_")


def fleet_env(dsn: str, api: str, gateway: str, folder: Path) -> dict[str, str]:
    """The environment of every fleet process: the database, the fake Discord, no key."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(_DROPPED)}
    env.update(
        DATABASE_URL=dsn,
        DISCORD_TOKEN="fake-token",
        DISCORD_API_URL=api,
        DISCORD_GATEWAY_URL=gateway,
        LLM_PROVIDER="offline",
        TELEMETRY_STDOUT="false",
        MEMORYBOT_IN_CONTAINER="0",
        DATA_DIR=str(folder / "data"),
        PYTHONPATH=str(ROOT),
    )
    return env


class Children:
    """memorybot processes by name; all stopped (SIGTERM, then kill) on leaving."""

    def __init__(self, env: Mapping[str, str], folder: Path) -> None:
        self._env = dict(env)
        self._folder = folder
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *args: str, **env: str) -> subprocess.Popen[bytes]:
        logs = self._folder / name
        logs.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *args],
            env={**self._env, "LOG_DIR": str(logs), **env},
            cwd=ROOT,
            stdout=(logs / "stdout.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        self.running[name] = process
        return process

    def shards(self, count: int, **env: str) -> None:
        """One `memorybot run` per shard of `count`, none running the job worker."""
        for shard in range(count):
            self.start(
                f"shard{shard}",
                "run",
                SHARD_COUNT=str(count),
                SHARD_IDS=str(shard),
                RUN_WORKER="false",
                **env,
            )

    def output(self, name: str) -> str:
        path = self._folder / name / "stdout.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def dead(self) -> list[str]:
        return [name for name, p in self.running.items() if p.poll() is not None]

    def cache_misses(self) -> dict[str, int]:
        """Cache misses that read the database (not those that joined a read under way) the
        shards' telemetry counted so far, by cache, over every rotated file (substring tests:
        a full parse would cost more than the step)."""
        misses: dict[str, int] = {}
        for path in self._folder.glob("shard*/telemetry.jsonl*"):
            with path.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    if '"op":"cache"' not in line or '"hit":false' not in line:
                        continue
                    if '"shared":true' in line:  # joined a read already under way
                        continue
                    name = line.partition('"cache":"')[2].partition('"')[0]
                    misses[name] = misses.get(name, 0) + 1
        return misses

    def rss_mb(self, name: str) -> float:
        """Resident memory of a running child, MB (VmRSS)."""
        status = Path(f"/proc/{self.running[name].pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    async def __aenter__(self) -> Children:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for process in self.running.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.running.values():
            try:
                await asyncio.wait_for(asyncio.to_thread(process.wait), 30)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
