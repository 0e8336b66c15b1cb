"""What the console user must hear about the model once: a server that stopped answering.

A dead model server was written only to logs/console.log, while the console went on answering
with the offline fallback and no hint why its answers turned plain. The chain's breakers report
every change to telemetry (op `breaker`); this sink turns the first opening of each model's
breaker into one line for the terminal.
"""

from __future__ import annotations

from typing import Any

from memory.core.telemetry import Telemetry


class ModelNotices:
    """Collects breaker openings as telemetry reports them; each model is told once."""

    def __init__(self, telemetry: Telemetry, log_file: str) -> None:
        self._log_file = log_file
        self._told: set[str] = set()
        self._pending: list[str] = []
        telemetry.add_sink(self._heard)

    def _heard(self, event: dict[str, Any]) -> None:
        if event.get("op") != "breaker" or event.get("state") != "open":
            return
        model = f"{event.get('provider')}:{event.get('model')}"
        if model in self._told:
            return
        self._told.add(model)
        reason = event.get("reason") or "no answer"
        self._pending.append(
            f"(the model {model} is not answering ({reason}); answers come from the next "
            f"provider in the chain, at last the offline one, until it is back; "
            f"details in {self._log_file})"
        )

    def pending(self) -> list[str]:
        """The lines not shown yet, then forgotten."""
        lines, self._pending = self._pending, []
        return lines
