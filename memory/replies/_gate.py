"""Who may enter the conversation window: not a member who opted out (or, in a server that
keeps only members who opted in, one who did not), nor the bot's answers to them.

Asked for every channel message: `remembered` is the consent the reply path holds
(`memory.members.MemberConsent`, a minute, dropped at once by an opt-out, opt-in or purge in any
process), so the gate keeps no answers of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from cachetools import LRUCache

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
        try:
            return await self._remembered(guild_id, user_id)
        except Exception as exc:  # unknown consent: keep them out rather than in
            _log.warning("consent of %s/%s unreadable: %s", guild_id, user_id, exc)
            return False
