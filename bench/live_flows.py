"""The flows of the live-model run, driven as an admin would through the CLI and console, with a
recording proxy (bench/live_proxy.py) in front of each model server.

`run_flows` needs only two OpenAI-compatible base URLs: the live run gives it llama-cpp-python's
servers (bench/live_model.py), the harness's own tests a scripted server that answers wrong in
one way (tests/bench/test_live_checks.py). What it returns is what the checks read.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live_proxy import Exchange, recording

ROOT = Path(__file__).resolve().parent.parent
EXPORT = sorted((ROOT / "docs" / "sample-export").glob("*.json"))
GUILD = "Sample Hikers"
AS_OF = "2026-05-13"
MEMBERS = ("alice", "bob", "carol")
# Said in the console as alice: every member-facing purpose once.
CONSOLE = [
    "Bot remember that I love mountain biking",
    "Bot what do you know about me?",
    "Bot what do you know about bob?",
    "Bot forget that I love mountain biking",
    "/undo alice",
    "Bot who is allergic to wasps?",
    "Bot what did I miss?",
    # A small model at a reply's temperature answers with the prompt's markup now and then
    # (replaced by the offline reply): more chances for a reply of its own to reach the member.
    "Bot how are you today?",
    "Bot any plans for the weekend?",
    "Bot tell me something nice about carol",
    "Bot thanks for the help!",
]
QUICK_CONSOLE = [CONSOLE[2], CONSOLE[7]]
# Said to the server with a tool-calling chat format: questions a search answers.
TOOL_CONSOLE = [
    "Bot what is the next trip?",
    "Bot search what carol said about the lighthouse loop",
    # A small model's answer after a tool's result is prompt markup now and then (replaced by
    # the offline answer): five chances a session for a tools round to reach the member.
    "Bot what has bob been up to lately?",
    "Bot search what alice said about her new flat",
    "Bot who is allergic to wasps?",
]
# Sessions of the tool questions at most, until a tools round reached the member (`enough`):
# SmolLM2-135M's answers after a tool's result were all markup in one session of five
# questions now and then (two clean-clone CI runs of about seven: with three questions, then
# with five). A server that never answers in words after a tool's result fails them all.
TOOL_SESSIONS = 3
# A reply's tools share twice the memory budget from the start of the reply: a CPU-only model
# spends more than that on its first round, and every tool would answer "no time left".
TOOL_BUDGET = {"REPLY_MEMORY_BUDGET_SECONDS": "300"}
# The most one CLI command of the flows may take, a console per line said (a reply from a
# CPU-only model: 10-60 s, minutes on a loaded machine).
COMMAND_SECONDS = 600.0
# What the project is told for the live provider: a CPU-only model is slow, one tool call.
LIVE_ENV = {
    "LLM_PROVIDER": "openai",
    "LLM_LOCAL_INTERACTIVE_TIMEOUT_SECONDS": "240",
    "REPLY_TOOL_CALLS": "1",
}


_SPEAKER = re.compile(r"^[^\s>][^>]{0,40}> ")


def answers(transcript: str) -> list[str]:
    """The bot's answers in a console transcript: each from its `Bot: ` line up to the next
    line said (`Alice> ...`), so an answer of several lines is whole."""
    found: list[list[str]] = []
    open_answer = False
    for line in transcript.splitlines():
        if line.startswith("Bot: "):
            found.append([line[len("Bot: ") :]])
            open_answer = True
        elif _SPEAKER.match(line):
            open_answer = False
        elif open_answer:
            found[-1].append(line)
    return ["\n".join(lines).strip() for lines in found]


class Project:
    """The project's CLI in its own data and log directories, with one provider set up; its
    own embedded database unless `database_url` names one."""

    def __init__(self, home: Path, database_url: str | None = None, **env: str) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.log_dir = home / "logs"
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "DATA_DIR": str(home / "data"),
            "LOG_DIR": str(self.log_dir),
            "TELEMETRY_STDOUT": "false",
            **({"DATABASE_URL": database_url} if database_url else {}),
            **env,
        }

    def cli(
        self,
        *args: str,
        stdin: str | None = None,
        timeout: float = COMMAND_SECONDS,
        **env: str,
    ) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "bot", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env={**self.env, **env},
            cwd=self.home,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"memorybot {' '.join(args)} failed: {done.stderr[-2000:]}")
        return done.stdout

    def console(self, lines: list[str], *, as_member: str = "alice", **env: str) -> list[str]:
        """The bot's answers, one per line said to it."""
        out = self.cli(
            "console",
            "--guild",
            GUILD,
            "--as",
            as_member,
            stdin="\n".join(lines) + "\n",
            timeout=COMMAND_SECONDS * len(lines),
            **env,
        )
        return answers(out)

    def events(self) -> list[dict[str, Any]]:
        path = self.log_dir / "telemetry.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return [json.loads(line) for line in lines if line.strip()]


@dataclass
class LiveRun:
    """What one run of the flows left for the checks and the report."""

    memory: dict[str, str] = field(default_factory=dict)  # member -> `memory show`
    console: list[str] = field(default_factory=list)  # the bot's answers to CONSOLE
    tool_console: list[str] = field(default_factory=list)  # ... to TOOL_CONSOLE
    digest: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)  # the project's telemetry
    exchanges: list[Exchange] = field(default_factory=list)  # both servers', in order


def run_flows(
    home: Path,
    plain: str,
    tools: str,
    model: str,
    *,
    database_url: str | None = None,
    quick: bool = False,
    env: Mapping[str, str] | None = None,
    tool_sessions: int = TOOL_SESSIONS,
    enough: Callable[[LiveRun], bool] | None = None,
) -> LiveRun:
    """Every flow against `plain` (a server without tools), then the tool questions against
        `tools` (one with a tool-calling chat format), both behind recording proxies, in up to
        `tool_sessions` console sessions until `enough` says the run has what it needs. `quick`
        (the harness's tests) skips `memory show` and the digest and says less in the console; `env`
    adds to the project's settings."""
    run = LiveRun()
    with recording(plain, "plain") as plain_proxy, recording(tools, "tools") as tools_proxy:
        project = Project(
            home,
            database_url,
            **{**LIVE_ENV, **(env or {})},
            OPENAI_BASE_URL=plain_proxy.base,
            OPENAI_MODEL=model,
        )
        project.cli("import", *map(str, EXPORT))
        if not quick:
            run.memory = {
                member: project.cli(
                    "memory", "show", "--guild", GUILD, "--user", member, "--now", AS_OF
                )
                for member in MEMBERS
            }
        run.console = project.console(QUICK_CONSOLE if quick else CONSOLE)
        if not quick:
            run.digest = project.cli("digest", "--guild", GUILD, "--day", "2026-05-06")
        said = TOOL_CONSOLE[:1] if quick else TOOL_CONSOLE
        for _ in range(max(1, tool_sessions)):
            run.tool_console += project.console(
                said, OPENAI_BASE_URL=tools_proxy.base, **TOOL_BUDGET
            )
            run.events = project.events()
            run.exchanges = plain_proxy.exchanges + tools_proxy.exchanges
            if enough is None or enough(run):
                break
        seen = {k: getattr(run, k) for k in ("memory", "console", "tool_console", "digest")}
        (home / "seen.json").write_text(json.dumps(seen, indent=1, ensure_ascii=False), "utf-8")
        plain_proxy.save(home / "exchanges.jsonl")
        tools_proxy.save(home / "exchanges.jsonl")
    return run
