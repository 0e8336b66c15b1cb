"""Why the LLM is called: the purpose names settings, routing, rate limits and telemetry share.

A leaf of its own so settings (per-purpose chains and models) and the LLM package agree on one
list without importing each other.
"""

from __future__ import annotations

from typing import Literal, get_args

Purpose = Literal[
    "daily_summary",
    "daily_reduce",
    "historical_summary",
    "episode",
    "merge",
    "remember",
    "forget",
    "route",
    "reply",
    "window_fold",
    "whois",
]

PURPOSES: tuple[str, ...] = get_args(Purpose)
