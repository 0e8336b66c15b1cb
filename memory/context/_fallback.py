"""What a member gets when their context cannot be built in time or at all: the last known
good context, else the stored facts and summaries verbatim, else the facts, else nothing; told
to telemetry each time, so an admin sees how often memory degraded and why.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memory.context._build import ContextBuilder
from memory.context._merge import ContextInputs, fallback_context
from memory.context._reports import fallback_report
from memory.core.clock import Clock, local_day
from memory.core.report import ContextReport
from memory.core.telemetry import Telemetry

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, eq=False)
class Fallbacks:
    """Serves the fallback of a build that failed or ran past its budget."""

    builder: ContextBuilder
    clock: Clock
    telemetry: Telemetry
    max_chars: int

    async def serve(
        self,
        guild_id: int,
        user_id: int,
        reason: str,
        error: BaseException | None,
        budget: float | None,
        started: float,
        shared: bool,
    ) -> ContextReport:
        """Serve, in order: the last known good context (if built from the current facts and
        forgotten statements), else facts + the latest summaries verbatim, else facts, else None.
        """
        text: str | None = None
        served = "none"
        inputs: ContextInputs | None = None
        try:
            # One round trip for the member's own rows (in a burst every query costs the
            # event loop as much as the database).
            inputs, stored = await self.builder.stored_inputs(guild_id, user_id)
            text, served = fallback_context(stored, inputs, self.max_chars)
        except Exception:
            _log.exception("fallback memory for %s/%s failed", guild_id, user_id)
        self.telemetry.emit(
            "fallback",
            outcome="degraded" if text else "empty",
            guild_id=guild_id,
            user_id=user_id,
            reason=reason,
            served=served,
            error=f"{type(error).__name__}: {error}"[:300] if error else None,
            budget_s=budget,
        )
        return fallback_report(
            inputs,
            guild_id=guild_id,
            user_id=user_id,
            text=text,
            served=served,
            reason=reason,
            today=local_day(self.clock.now(), "UTC"),
            max_chars=self.max_chars,
            budget=budget,
            started=started,
            shared=shared,
        )
