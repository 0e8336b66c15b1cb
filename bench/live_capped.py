"""llama-cpp-python's server with its unbounded completions capped, for the live-model run
(bench/live_servers.py starts it with the live model's own python, as a script).

Why: the server's "chatml-function-calling" format writes an answer in several completions (the
tool's name, its arguments, the message after a tool, the message the model chose instead of a
tool) and asks each of them with `max_tokens=None`, whatever the request's `max_tokens` said.
`None` means "until the context is full": 8,192 tokens of a 135M model under a grammar, minutes
of work. The server answers one request at a time and keeps generating after the bot gave up
waiting, so every request queued behind a rambling one times out too. That was the stalled
live-model run of 2026-12-06 (every tool question timed out for about 30 minutes).

Here a completion asked with `max_tokens=None` gets UNBOUNDED_CAP tokens instead: more than a
reply's 700, the one request the bot sends with tools (every other request's own `max_tokens`
reaches its completion unchanged), far less than the context. Nothing else changes.
Only the standard library is imported at module level, so the project's tests can check the
cap without llama-cpp-python installed.
"""

from __future__ import annotations

import functools
import importlib
import runpy
import sys
from collections.abc import Callable
from typing import Any

# Tokens for a completion asked with no limit: above a reply's budget (memory/llm/tasks/_calls.py,
# 700; replies are the only requests sent with tools), well below the 8,192-token context.
UNBOUNDED_CAP = 1024


def capped(create: Callable[..., Any], cap: int = UNBOUNDED_CAP) -> Callable[..., Any]:
    """`create` (a `Llama.create_completion`) with an explicit `max_tokens=None` replaced by
    `cap`; a limit the caller set, or the method's own default, is left alone."""

    @functools.wraps(create)
    def create_capped(*args: Any, **kwargs: Any) -> Any:
        if "max_tokens" in kwargs and kwargs["max_tokens"] is None:
            kwargs["max_tokens"] = cap
        return create(*args, **kwargs)

    return create_capped


def main(argv: list[str]) -> None:
    """Cap `Llama.create_completion`, then run `python -m llama_cpp.server` with `argv`."""
    llama = importlib.import_module("llama_cpp.llama")  # the live model's virtualenv only
    llama.Llama.create_completion = capped(llama.Llama.create_completion)
    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
