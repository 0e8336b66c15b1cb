"""What the circuit breakers report: telemetry (op `breaker`) and `LOG_DIR/llm-breakers.json`,
the file `memorybot health` and the dashboard read from another process.

The breakers themselves (`_breaker.py`) only decide; a change of state reaches these through
their `on_change`.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from memory.core.telemetry import Telemetry
from memory.llm.providers._breaker import CLOSED, STATE_FILE, BreakerState

_log = logging.getLogger(__name__)


class BreakerStateFile:
    """`LOG_DIR/llm-breakers.json`: the breakers that are not closed, for `memorybot health`
    (another process). Written on every change; a write that fails is logged, never raised."""

    def __init__(self, log_dir: Path) -> None:
        self.path = Path(log_dir) / STATE_FILE
        self._states: dict[str, BreakerState] = {}

    def record(self, state: BreakerState) -> None:
        key = f"{state.provider}:{state.model}"
        if state.state == CLOSED:
            self._states.pop(key, None)
        else:
            self._states[key] = state
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{STATE_FILE}.{os.getpid()}")
            written = {"pid": os.getpid(), "host": socket.gethostname(), "ts": time.time()}
            breakers = [asdict(s) for s in self._states.values()]
            temporary.write_text(json.dumps({**written, "breakers": breakers}) + "\n")
            os.replace(temporary, self.path)
        except OSError as exc:
            _log.warning("cannot write %s: %s", self.path, exc)


def read_breaker_states(log_dir: Path) -> list[BreakerState]:
    """The breakers a running process last reported not closed; [] when none, no file, or
    the process that wrote them has exited (its breakers went with it: not current)."""
    path = Path(log_dir) / STATE_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    if isinstance(data, dict) and _writer_exited(data):
        return []
    states: list[BreakerState] = []
    for item in data.get("breakers", []) if isinstance(data, dict) else []:
        try:
            states.append(BreakerState(**item))
        except TypeError:
            continue
    return states


def _writer_exited(data: dict[str, object]) -> bool:
    """True when the file's writer is known to be gone: a pid of this machine that no process
    has. A file from another host (a shared volume) cannot be checked and counts as current."""
    pid, host = data.get("pid"), data.get("host")
    if not isinstance(pid, int) or pid <= 0 or (host and host != socket.gethostname()):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive under another user, or not ours to ask
        return False
    return False


def describe_states(states: list[BreakerState], *, now: float | None = None) -> str:
    """One line: `openai:qwen3 open since 40s (LLMUnreachable: ...)`; "" when all closed."""
    now = time.time() if now is None else now
    parts = []
    for state in states:
        since = f" for {now - state.opened_at:.0f}s" if state.opened_at else ""
        parts.append(f"{state.provider}:{state.model} {state.state}{since} ({state.reason})")
    return "; ".join(parts)


def breaker_listener(
    telemetry: Telemetry, state_file: BreakerStateFile | None = None
) -> Callable[[BreakerState], None]:
    """Tell a change to telemetry (op `breaker`) and, when given, to the state file."""

    def changed(state: BreakerState) -> None:
        telemetry.emit(
            "breaker",
            outcome=state.state,
            state=state.state,
            provider=state.provider,
            model=state.model,
            reason=state.reason or None,
            retry_in_s=state.retry_in_seconds or None,
        )
        if state_file is not None:
            state_file.record(state)

    return changed


def breaker_report(log_dir: Path) -> str:
    """For `memorybot health`: which models a running process skips now; "" when none."""
    return describe_states(read_breaker_states(log_dir))
