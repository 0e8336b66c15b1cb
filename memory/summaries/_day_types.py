"""What the daily summariser is configured with and what closing a day returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from memory.core.config_fields import FromSettings, setting
from memory.summaries._notes import NotesConfig


@dataclass(frozen=True, slots=True)
class SummaryConfig:
    """What the summarisers read of the settings: lengths, the prompt cap, the history cache
    and the bot's name (memory commands addressed to it are left out of a day)."""

    bot_name: str = setting("bot_name")
    daily_summary_chars: int = setting("daily_summary_chars")
    historical_summary_chars: int = setting("historical_summary_chars")
    daily_prompt_max_chars: int | None = setting("daily_prompt_max_chars")
    cache_history_size: int = setting("cache_history_size")

    from_settings = FromSettings()

    @property
    def notes(self) -> NotesConfig:
        return NotesConfig(
            bot_name=self.bot_name,
            note_chars=self.daily_summary_chars,
            prompt_max_chars=self.daily_prompt_max_chars,
        )


@dataclass(frozen=True)
class DayResult:
    """One guild-day's per-member summaries and how they were obtained."""

    guild_id: int
    day: date
    summaries: dict[int, str]
    message_count: int
    computed: bool = False
    reason: str = "fresh"
    chunks: int = 0
    llm_calls: int = 0
    targets: list[int] = field(default_factory=list)
    # reason "expired": how many messages the kept summary was made from.
    stored_messages: int = 0
