"""Which model serves which purpose: shared by every remote provider."""

from __future__ import annotations

from collections.abc import Mapping

# Purposes that run once per guild-day over a lot of chat: worth the stronger model.
DAILY_PURPOSES: frozenset[str] = frozenset({"daily_summary", "daily_reduce"})


def pick_model(purpose: str, *, model: str, model_daily: str, overrides: Mapping[str, str]) -> str:
    """An explicit per-purpose override, else the daily model for daily work, else the default."""
    if purpose in overrides:
        return overrides[purpose]
    return model_daily if purpose in DAILY_PURPOSES else model
