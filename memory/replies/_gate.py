"""Who may enter the conversation window: not a member who opted out (or, in a server that
keeps only members who opted in, one who did not), nor the bot's answers to them.

Asked for every channel message, so the answer is cached per member for a few minutes; an
opt-out or purge in any process says so at once (`gone`, published across processes), so the
cache never lets an opted-out member's next message in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from cachetools import LRUCache, TTLCache

if TYPE_CHECKING:
    from memory.replies._message import IncomingMessage

_log = logging.getLogger(__name__)

Remembered = Callable[[int, int], Awaitable[bool]]
CONSENT_TTL_SECONDS = 300.0


class WindowGate:
    """Admits a message to the window when its author (or, for the bot's replies, the author
    of the message it answers) may be remembered."""

    def __init__(self, remembered: Remembered | None) -> None:
        self._remembered = remembered
        self._known: TTLCache[tuple[int, int], bool] = TTLCache(
            maxsize=50_000, ttl=CONSENT_TTL_SECONDS, timer=time.monotonic
        )
        # Messages kept out, so the bot's answer to one is kept out too.
        self._kept_out: LRUCache[int, bool] = LRUCache(maxsize=10_000)

    async def admits(self, message: IncomingMessage, *, from_bot: bool = False) -> bool:
        if message.reply_to_id is not None and message.reply_to_id in self._kept_out:
            return False
        if from_bot or await self._may_keep(message.guild_id, message.author_id):
            return True
        self._kept_out[message.message_id] = True
        return False

    async def _may_keep(self, guild_id: int, user_id: int) -> bool:
        if self._remembered is None:
            return True
        key = (guild_id, user_id)
        known = self._known.get(key)
        if known is None:
            try:
                known = await self._remembered(guild_id, user_id)
            except Exception as exc:  # unknown consent: keep them out rather than in
                _log.warning("consent of %s/%s unreadable: %s", guild_id, user_id, exc)
                return False
            self._known[key] = known
        return known

    def recheck(self, guild_id: int, user_id: int) -> None:
        """Their consent changed (opt-out, purge, opt-in): ask the database again next time
        (an opt-out is recorded before its purge tells the windows, so the answer is true)."""
        self._known.pop((guild_id, user_id), None)
