"""Transient memory: daily summaries per guild-day, the days 2-7 history per member, and the
rule that keeps forgotten statements out of both.
"""

from __future__ import annotations

from memory.summaries._daily import DailySummarizer
from memory.summaries._day_types import DayResult, SummaryConfig
from memory.summaries._forgetting import (
    ForgottenAbout,
    drop_forgotten,
    drop_guild_forgotten,
    forgotten_about,
    load_guild_forgotten,
)
from memory.summaries._historical import HistoricalSummarizer
from memory.summaries._learned import learned_lines
from memory.summaries._stats import BuildStats

__all__ = [
    "BuildStats",
    "DailySummarizer",
    "DayResult",
    "ForgottenAbout",
    "HistoricalSummarizer",
    "SummaryConfig",
    "drop_forgotten",
    "drop_guild_forgotten",
    "forgotten_about",
    "learned_lines",
    "load_guild_forgotten",
]
