"""Episode segmentation scored on the quality bench's chats (issue 28): the planted sessions
are the episodes a segmentation should find.

A planted session's first message starting an episode counts as found; an episode starting
anywhere else is spurious. Reported as `episode_boundaries_found` and `episode_spurious`
(shares, target >= 0.9 and <= 0.1). Then the episodes gone quiet are closed and summarised,
as the worker and `memorybot import` do (extractively: the offline provider), and read back
for the day questions.
"""

from __future__ import annotations

from typing import Any

from bench.quality_data import QualityChat
from bench.quality_days import StoredEpisode
from bench.report import Reporter
from memory.wiring import Memory

BENCH = "quality"
# Far more than a bench chat's episodes: the listing must hold them all.
LISTING_LIMIT = 100_000


async def score_episodes(
    memory: Memory, chat: QualityChat, report: Reporter, params: dict[str, Any]
) -> tuple[float, float]:
    """The episodes the import cut (`memory.imports.settle`), compared with the sessions the
    chat planted."""
    episodes = await memory.episodes.listing(chat.guild_id, limit=LISTING_LIMIT)
    planted = {first for channel in chat.channels for first, _ in chat.boundaries(channel)}
    starts = {episode.first_message_id for episode in episodes}
    found = len(planted & starts) / len(planted) if planted else 1.0
    spurious = len(starts - planted) / len(starts) if starts else 0.0
    extra = {**params, "sessions_planted": len(planted), "episodes": len(starts)}
    report(BENCH, "episode_boundaries_found", round(found, 4), "fraction", **extra)
    report(BENCH, "episode_spurious", round(spurious, 4), "fraction", **extra)
    return found, spurious


async def summarised_episodes(memory: Memory, chat: QualityChat) -> dict[int, StoredEpisode]:
    """Summarise the closed episodes as `memorybot import` does, after the worker's sweep has
    closed the last one (the questions come the morning after); first message id -> episode."""
    await memory.episodes.sweep()
    await memory.episodes.summarize_guild(chat.guild_id)
    episodes = await memory.episodes.listing(chat.guild_id, limit=LISTING_LIMIT)
    return {
        episode.first_message_id: StoredEpisode(
            episode.first_message_id, episode.title, episode.summary
        )
        for episode in episodes
    }
