"""What the LLM calls cost: counted per day as they complete (`llm_usage`), priced from
per-model prices, and an optional daily token budget for background work."""

from __future__ import annotations

from memory.core.prices import DEFAULT_PRICES, Prices
from memory.usage._budget import BACKGROUND_PURPOSES, DailyTokenBudget
from memory.usage._recorder import UsageRecorder
from memory.usage._report import render_usage

__all__ = [
    "BACKGROUND_PURPOSES",
    "DEFAULT_PRICES",
    "DailyTokenBudget",
    "Prices",
    "UsageRecorder",
    "render_usage",
]
