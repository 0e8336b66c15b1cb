"""pgqueuer's QueueManager with a listener health check that does not fail at start.

pgqueuer probes its LISTEN connection every 10 s (a NOTIFY it must hear back) and, with
`shutdown_on_listener_failure`, stops the consumer when a probe goes unanswered. But it starts
the first probe before its LISTEN is registered, so that NOTIFY can go unheard: the consumer
then stopped about 30 s after every start (when the loop next looked) with an exception whose
text is empty (`FailingListenerError()`). Here a probe fails the consumer only when it goes
unanswered twice in a row: a listener that is really gone still stops it within two
intervals, and the restart loop in `JobWorker` starts a fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from pgqueuer import QueueManager
from pgqueuer.errors import FailingListenerError

_log = logging.getLogger(__name__)

# Unanswered probes in a row before the listener counts as lost.
MISSED_PROBES_ALLOWED = 1


class ListenerLost(FailingListenerError):
    """The LISTEN connection answered no health probe: the consumer must start over."""


class QueueConsumer(QueueManager):
    """A QueueManager whose listener probe tolerates the one NOTIFY sent before LISTEN."""

    # Seconds between listener probes (pgqueuer's own default); tests shorten it.
    probe_seconds: float = 10.0
    probes_answered: int = 0

    async def _run_periodic_health_check(self, interval: timedelta = timedelta(seconds=10)) -> None:
        interval = timedelta(seconds=self.probe_seconds)
        missed = 0
        while not self.shutdown.is_set():
            try:
                await self.listener_healthy(timeout=interval)
            except FailingListenerError:
                missed += 1
                if missed > MISSED_PROBES_ALLOWED:
                    raise ListenerLost(
                        f"the job queue's LISTEN connection answered none of {missed} health"
                        f" probes ({interval.total_seconds():g}s each)"
                    ) from None
                _log.debug("job queue listener probe unanswered (%d in a row)", missed)
            else:
                missed = 0
                self.probes_answered += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.shutdown.wait(), interval.total_seconds())
