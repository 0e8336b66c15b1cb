"""discord.py's rate-limit buckets cleared in amortised time.

`discord.http.HTTPClient` keeps one bucket per route and channel; once it holds 256, every
new bucket makes it scan all of them for inactive ones. A bot answering in many channels at
once (a burst of 100 replies: a bucket per channel for the answer, for the typing indicator)
then does a scan per new bucket, quadratic in the channels: 100,000 checks in the reply-burst
bench, a tenth of the bot's CPU there. Here a scan runs only when the buckets have doubled
since the last one: the same buckets go (inactive for 5 minutes, nothing queued), at most
twice as many are held, and each new bucket costs O(1) on average.
"""

from __future__ import annotations

import logging

import discord.http

_log = logging.getLogger(__name__)

# discord.py scans once it holds this many buckets.
FIRST_SCAN_AT = 256


class AmortisedBucketClearing:
    """Replaces an HTTPClient's per-new-bucket scan with one every time the buckets double."""

    def __init__(self, http: discord.http.HTTPClient) -> None:
        self._http = http
        self._scan_at = FIRST_SCAN_AT
        self.scans = 0

    @classmethod
    def install(cls, http: discord.http.HTTPClient) -> AmortisedBucketClearing | None:
        """Install on `http` where this discord.py clears buckets as described above."""
        if not hasattr(http, "_try_clear_expired_ratelimits") or not hasattr(http, "_buckets"):
            _log.info("discord.py clears rate-limit buckets differently: left as it is")
            return None
        clearing = cls(http)
        http._try_clear_expired_ratelimits = clearing.clear  # type: ignore[method-assign]
        return clearing

    def clear(self) -> None:
        buckets = self._http._buckets
        if len(buckets) < self._scan_at:
            return
        self.scans += 1
        for key in [key for key, bucket in buckets.items() if bucket.is_inactive()]:
            del buckets[key]
        self._scan_at = max(FIRST_SCAN_AT, 2 * len(buckets))
