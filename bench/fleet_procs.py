"""The fleet's processes: `memorybot run` per shard and `memorybot worker`, started as an admin
would (environment only), each with its own log directory; their resident memory read from
/proc (bench/fleet.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
    """memorybot processes by name, each logging to its own folder under `folder`; all stopped
    (SIGTERM, then kill) on leaving. They run in `cwd` (the repository by default; the e2e
    tests give a folder of their own, so no local .env is read)."""

    def __init__(self, env: Mapping[str, str], folder: Path, *, cwd: Path = ROOT) -> None:
        self._env = dict(env)
        self._folder = folder
        self._cwd = cwd
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *args: str, **env: str) -> subprocess.Popen[bytes]:
        logs = self._folder / name
        logs.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *args],
            env={**self._env, "LOG_DIR": str(logs), **env},
            cwd=self._cwd,
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

    async def run(self, name: str, *args: str, **env: str) -> int:
        """Run one command to its end (at most two minutes); its exit code."""
        process = self.start(name, *args, **env)
        return await asyncio.wait_for(asyncio.to_thread(process.wait), 120)

    def output(self, name: str) -> str:
        path = self._folder / name / "stdout.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def events(self, name: str) -> list[dict[str, Any]]:
        """What a child wrote to its telemetry file so far."""
        path = self._folder / name / "telemetry.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

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
