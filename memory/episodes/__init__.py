"""Episodes: each channel's conversation cut where it went quiet, changed topic or was told to;
summaries of closed ones, the reply's working memory, catch-up and the daily digest."""

from __future__ import annotations

from memory.episodes._digest import DIGEST_CHARS, InvalidDigestTime, parse_digest_time
from memory.episodes._episode_service import EpisodeService, PendingDigest
from memory.episodes._segment import Segment, SegmentMessage, SegmentRules, is_marker, segment
from memory.episodes._views import Episode, listing_line
from memory.episodes._visibility import public_channel_ids
from memory.language import asks_catch_up

__all__ = [
    "DIGEST_CHARS",
    "Episode",
    "EpisodeService",
    "InvalidDigestTime",
    "PendingDigest",
    "Segment",
    "SegmentMessage",
    "SegmentRules",
    "asks_catch_up",
    "is_marker",
    "listing_line",
    "parse_digest_time",
    "public_channel_ids",
    "segment",
]
