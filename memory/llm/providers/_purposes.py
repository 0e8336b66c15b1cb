"""Which model serves which purpose: shared by every remote provider."""

from __future__ import annotations

from collections.abc import Mapping

# Purposes that run once per guild-day over a lot of chat: worth the stronger model.
DAILY_PURPOSES: frozenset[str] = frozenset({"daily_summary", "daily_reduce"})
# Purposes a member waits on: they get LLM_INTERACTIVE_TIMEOUT_SECONDS per provider in all.
INTERACTIVE_PURPOSES: frozenset[str] = frozenset(
    {"reply", "route", "whois", "remember", "forget", "window_fold"}
)


def pick_model(purpose: str, *, model: str, model_daily: str, overrides: Mapping[str, str]) -> str:
    """An explicit per-purpose override, else the daily model for daily work, else the default."""
    if purpose in overrides:
        return overrides[purpose]
    return model_daily if purpose in DAILY_PURPOSES else model
