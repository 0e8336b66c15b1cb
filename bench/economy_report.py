"""The economy bench's figures (bench/economy.py replays, this module reports): tokens against
the raw chat, the hierarchy's calls and tokens by purpose, the naive design's, and a restart's.
Kept apart from the replay so each reads as one thing: how the guild is replayed, and what is
said about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.economy_costs import NaiveCost, _message_chars, _raw_tokens
from bench.providers import TOKENIZER, Usage
from bench.report import Reporter
from bench.synthetic import SyntheticGuild

BENCH = "economy"


@dataclass(frozen=True)
class Replayed:
    """What the measured replay left to report: the memories asked for, the calls of the
    warm-up week and of the measured days, their day summarisations and the wall time."""

    requests: int
    warmup: Usage
    measured: Usage
    summaries: list[dict[str, Any]]
    elapsed: float


def report_tokens(
    report: Reporter,
    params: dict[str, Any],
    guild: SyntheticGuild,
    measured: Usage,
    days: int,
    request_rate: float,
) -> None:
    """Raw chat tokens per guild-day and the hierarchy's multiple of them."""
    replayed = [message for offset in range(days) for message in guild.messages(offset)]
    raw = sum(_raw_tokens(guild, guild.messages(offset)) for offset in range(days)) / days
    report(BENCH, "raw_tokens_per_guild_day", raw, "tokens", tokenizer=TOKENIZER, **params)
    ratio = measured.total_tokens / days / raw if raw else float("inf")
    report(
        BENCH,
        "hierarchy_to_raw_token_ratio",
        ratio,
        "x",
        tokenizer=TOKENIZER,
        target=3.0 if request_rate <= 0.05 else 4.0,
        **params,
    )
    report(
        BENCH,
        "response_schema_tokens_per_guild_day",
        sum(measured.schema_tokens.values()) / days,
        "tokens",
        note="sent beside the prompts by structured calls; in no ratio",
        **params,
    )
    xml_chars, content_chars = _message_chars(guild, replayed)
    report(BENCH, "prompt_chars_per_message", xml_chars, "chars", **params)
    report(BENCH, "content_chars_per_message", content_chars, "chars", **params)


def report_costs(
    report: Reporter,
    params: dict[str, object],
    *,
    days: int,
    replayed: Replayed,
    naive: NaiveCost,
    after_restart: Usage,
    completed_day_calls: int,
    members: int,
) -> dict[str, float]:
    """The hierarchy's calls and tokens a guild-day against the naive design's, and what a
    restart costs; returns the headline figures."""
    measured = replayed.measured
    calls = measured.total_calls / days
    tokens = measured.total_tokens / days
    naive_calls = naive.calls / days
    naive_tokens = (naive.input_tokens + naive.output_tokens) / days
    report(BENCH, "requests_per_guild_day", replayed.requests / days, "requests", **params)
    report(BENCH, "warmup_calls_first_week", replayed.warmup.total_calls, "calls", **params)
    _report_hierarchy(report, params, measured, days, replayed.summaries)
    report(BENCH, "naive_calls_per_guild_day", naive_calls, "calls", **params)
    report(BENCH, "naive_tokens_per_guild_day", naive_tokens, "tokens", **params)
    call_ratio = naive_calls / calls if calls else float("inf")
    token_ratio = naive_tokens / tokens if tokens else float("inf")
    report(BENCH, "naive_to_hierarchy_call_ratio", call_ratio, "x", **params)
    report(BENCH, "naive_to_hierarchy_token_ratio", token_ratio, "x", **params)
    report(
        BENCH,
        "restart_calls_completed_days",
        completed_day_calls,
        "calls",
        target=0,
        requests=members,
        **params,
    )
    report(
        BENCH, "restart_calls_total", after_restart.total_calls, "calls", requests=members, **params
    )
    report(BENCH, "replay_seconds", replayed.elapsed, "s", **params)
    return {
        "calls_per_guild_day": calls,
        "naive_calls_per_guild_day": naive_calls,
        "call_ratio": call_ratio,
        "token_ratio": token_ratio,
        "restart_completed_day_calls": completed_day_calls,
        "restart_calls": after_restart.total_calls,
    }


def _report_hierarchy(
    report: Reporter,
    params: dict[str, object],
    measured: Usage,
    days: int,
    summaries: list[dict[str, Any]],
) -> None:
    """The hierarchy's calls and tokens a guild-day, by purpose and in all, and how often a
    day was summarised in how many chunks: where its cost comes from."""
    for purpose in sorted(measured.calls):
        report(
            BENCH,
            "hierarchy_calls_per_guild_day",
            measured.calls[purpose] / days,
            "calls",
            purpose=purpose,
            **params,
        )
    calls = measured.total_calls / days
    report(BENCH, "hierarchy_calls_per_guild_day", calls, "calls", purpose="all", **params)
    for purpose in sorted(measured.calls):
        purpose_tokens = measured.input_tokens[purpose] + measured.output_tokens[purpose]
        report(
            BENCH,
            "hierarchy_tokens_per_guild_day",
            purpose_tokens / days,
            "tokens",
            purpose=purpose,
            **params,
        )
    tokens = measured.total_tokens / days
    report(BENCH, "hierarchy_tokens_per_guild_day", tokens, "tokens", purpose="all", **params)
    if summaries:
        report(BENCH, "day_summarisations_per_guild_day", len(summaries) / days, "runs", **params)
        chunks = sum(int(event.get("chunks") or 0) for event in summaries) / len(summaries)
        report(BENCH, "chunks_per_day_summarisation", chunks, "chunks", **params)
