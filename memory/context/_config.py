"""What a MemoryManager needs of the settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.core.config_fields import read_settings, setting
from memory.core.settings import Settings
from memory.summaries import SummaryConfig


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """What building contexts reads of the settings: the context length, the default day
    boundaries, cache sizes, how many days may be summarised at once (each pins a pool
    connection), and the summarisers' own settings."""

    context_max_chars: int = setting("context_max_chars")
    default_timezone: str = setting("default_timezone")
    cache_today_size: int = setting("cache_today_size")
    cache_context_size: int = setting("cache_context_size")
    max_parallel_days: int = 3
    max_parallel_builds: int = 3
    summaries: SummaryConfig = field(default_factory=SummaryConfig)

    @classmethod
    def from_settings(cls, settings: Settings) -> ContextConfig:
        return read_settings(
            cls,
            settings,
            max_parallel_days=max(1, settings.db_pool_max // 3),
            max_parallel_builds=max(1, settings.db_pool_max // 3),
            summaries=SummaryConfig.from_settings(settings),
        )
