"""How big `python -m bench` runs each benchmark: the full sizes its figures in
docs/performance.md are measured at, and the quick sizes of `--quick` and the smoke test
(tests/bench/test_bench_smoke.py). A table kept apart from the command line that reads it.
"""

from __future__ import annotations

from typing import Any

# Full sizes keep each benchmark under 10 minutes on 2 cores; quick sizes under a few seconds.
FULL: dict[str, dict[str, Any]] = {
    "ingest": {"messages": 50_000, "rate": 1000.0, "seconds": 5.0},
    "economy": {"members": 50, "messages_per_day": 500, "days": 7, "rates": (0.05, 0.02, 0.2)},
    "latency": {"members": 200, "messages_per_day": 1000, "latency": 0.05, "warm_requests": 2000},
    "memory": {
        "guilds": 100,
        "members_per_guild": 100,
        "messages_per_day": 300,
        "ascii_guilds": 10,
    },
    "scale": {"requested": 200, "warm_requests": 500, "max_members": 10_000, "scale_down": 1},
    # About 8 minutes on 2 cores, most of it filling the guild and re-indexing it.
    "recall": {"messages": 1_000_000, "members": 500, "days": 365, "repeats": 10},
    # About 2 minutes: five conversations, every question, with the local vectors and without.
    "locomo": {"every": 1, "without_vectors": True},
    # About 20 s; `python -m bench.quality --large` for a bigger chat.
    "quality": {"members": 5, "sessions": 30, "days": 150, "per_kind": 10},
    # About 20 s: 100 members one at a time (twice), then 100 at once (warm, then 100 cold).
    "reply_e2e": {"members": 100, "history": 1000, "rounds": 2},
    "dead_endpoint": {"replies": 20},
    # About 2 minutes on 2 cores, most of it filling the guild with a million messages.
    "dashboard": {"messages": 1_000_000, "members": 500, "days": 30, "repeats": 20},
    # A few minutes on 2 cores: 60,000 stored messages embedded as an import does, and the
    # sentence encoder (when installed) on 200 messages; LoCoMo-dev's turns ranked for its
    # questions (the sentence encoder's two conversations take about a minute).
    "embeddings": {
        "messages": 20_000,
        "stored": 60_000,
        "minilm_messages": 200,
        "locomo_conversations": 5,
        "minilm_conversations": 2,
    },
    "live_model": {},
    "house": {},
    # About 10 minutes on 2 cores: 10,000 guilds in two shard processes (`--guilds` to change).
    "fleet": {
        "guilds": 10_000,
        "small_guilds": 1_000,
        "shards": 2,
        "rates": (250.0, 500.0, 1000.0, 2000.0, 4000.0),
        "step_seconds": 10.0,
        "day_volumes": (1, 10, 100, 1000, 10_000),
        "size_guilds": 10,
        "size_messages_per_day": 500,
    },
    # About 2 minutes: `memorybot run` idle with one guild of each size, a worker beside it.
    "processes": {"members": (10, 10_000, 50_000), "settle_seconds": 20.0},
}
QUICK: dict[str, dict[str, Any]] = {
    "ingest": {"messages": 500, "rate": 500.0, "seconds": 0.3},
    "economy": {"members": 6, "messages_per_day": 30, "days": 2, "rates": (0.05, 0.2)},
    "latency": {
        "members": 8,
        "messages_per_day": 30,
        "latency": 0.01,
        "warm_requests": 40,
        "concurrent": 20,
        "cold_members": 3,
    },
    "memory": {"guilds": 2, "members_per_guild": 10, "messages_per_day": 20, "ascii_guilds": 1},
    "scale": {
        "sweeps": ["guilds"],
        "requested": 10,
        "warm_requests": 20,
        "max_members": 200,
        "scale_down": 4,
    },
    "recall": {"messages": 2000, "members": 30, "days": 30, "repeats": 2, "summaries_per_day": 3},
    "locomo": {"conversations": 1, "every": 25},
    "quality": {"members": 3, "sessions": 6, "days": 20, "per_kind": 2},
    "reply_e2e": {"members": 4, "history": 20, "rounds": 2},
    "dead_endpoint": {"replies": 3},
    "dashboard": {"messages": 2000, "members": 30, "days": 30, "repeats": 2},
    "embeddings": {
        "messages": 300,
        "stored": 1000,
        "minilm_messages": 20,
        "locomo_conversations": 1,
        "minilm_conversations": 0,
    },
    "live_model": {},
    "house": {},
    "fleet": {
        "guilds": 40,
        "small_guilds": 20,
        "shards": 2,
        "rates": (50.0, 100.0),
        "step_seconds": 1.0,
        "day_volumes": (1, 10, 50),
        "size_guilds": 1,
        "size_messages_per_day": 50,
    },
    "processes": {"members": (2, 200), "settle_seconds": 0.5},
}
