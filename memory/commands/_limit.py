"""Per-member rate limit for memory commands (the shared sliding-window limiter).

COMMANDS_PER_MINUTE counts writes only: remembering, forgetting and undoing change what is
held and cost a merge each. Reads ("who am I", /whois) are answered from memory whatever the
pace, so a newcomer looking around never meets the limit.
"""

from __future__ import annotations

from memory.core.ratelimit import Admission
from memory.core.ratelimit import RateLimiter as CommandRateLimiter

# The command kinds (memory.language.CommandKind) that count against the limit.
WRITES = frozenset({"remember", "remember_this", "forget", "forget_this"})

__all__ = ["WRITES", "Admission", "CommandRateLimiter"]
