"""Per-member rate limit for memory commands (the shared sliding-window limiter)."""

from __future__ import annotations

from memory.core.ratelimit import Admission
from memory.core.ratelimit import RateLimiter as CommandRateLimiter

__all__ = ["Admission", "CommandRateLimiter"]
