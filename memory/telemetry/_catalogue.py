"""The telemetry vocabulary: every operation (`op`) and every documented field.

Every line carries `ts`, `op` and `outcome`; the other fields depend on the operation and are
listed in `FIELDS` (docs/operations.md renders the same table).
"""

from __future__ import annotations

TELEMETRY_FILE = "telemetry.jsonl"

# The documented fields of a telemetry line. Producers may add operation-specific extras (listed
# with each op in docs/operations.md); these names keep one meaning everywhere.
FIELDS: dict[str, str] = {
    "ts": "UTC time the event was emitted (end of the operation), ISO 8601 with milliseconds",
    "op": "operation name, one of OPS",
    "outcome": "ok, error, or an op-specific result (fallback, retry, degraded, refused, ...)",
    "guild_id": "Discord guild (server) id the operation was for",
    "user_id": "member the operation was about (subject of a remember, a context, a purge)",
    "actor_id": "member who asked for it, when that is someone else",
    "channel_id": "channel the operation was for",
    "latency_ms": "wall time of the operation in milliseconds",
    "error": "exception type and message, truncated",
    "provider": "LLM provider that was called: gemini, openai, offline",
    "model": "model name used by the provider",
    "purpose": "why the LLM was called: daily_summary, merge, remember, route, reply, ...",
    "input_tokens": "prompt tokens reported by the provider",
    "output_tokens": "completion tokens reported by the provider",
    "tokens_estimated": "llm_call: true when the tokens are our estimate (offline), not a server's",
    "retries": "retries before the call succeeded or gave up",
    "attempt_errors": "llm_call: the error class of each attempt that got no answer, in order",
    "fallback_to": "llm_call that failed over: the provider tried next",
    "state": "breaker: the circuit breaker's new state (open, half_open, closed)",
    "retry_in_s": "breaker: seconds until an open breaker lets one probe through",
    "fallback_from": "llm_call answered by a fallback: the provider that failed first",
    "cache": "cache event: which cache (today, history, context, ...)",
    "hit": "cache event: true for a hit, false for a miss",
    "shared": "cache miss that joined a computation already in flight (single flight)",
    "reason": "why it happened: a fallback's cause, a summary's (missing, stale, changed)",
    "served": "fallback: what was served (last_known_good, facts_and_summaries, facts, none)",
    "day": "calendar day (guild time zone) a daily summary is for, YYYY-MM-DD",
    "end_day": "last day a historical summary covers, YYYY-MM-DD",
    "count": "rows handled by retention and privacy operations; texts in an embed request",
    "size": "ingest_batch: events in the batch",
    "queue_depth": "ingest: events still waiting in the queue",
    "command": "admin: the /memory subcommand; command: the member command",
    "job": "job: which background job (close_day, retention)",
    "attempt": "job: which attempt this was (retries come back with backoff)",
    "name": "tool_call: which tool the reply model called (search_memory, member_memory, ...)",
    "hits": "tool_call: lines the tool answered with",
    "shards": "the Discord shards of the process that emitted it, e.g. 0-1/4 (bots only)",
}

# Every operation memorybot reports; `op` of every line is one of these.
OPS: dict[str, str] = {
    "ingest_batch": "a batch of message events written (size, inserted, queue_depth)",
    "ingest_overflow": "the ingest queue went past INGEST_QUEUE_MAX (kept in memory)",
    "ingest_reject": "one event the database refused (not stored)",
    "ingest_shutdown": "events still queued when the writer was closed",
    "ingest_writer_restart": "the writer's flush loop died unexpectedly and was restarted",
    "backfill": "channel history fetched on start-up (messages)",
    "import": "one DiscordChatExporter file imported (messages, new, skipped)",
    "daily_summary": "one guild-day summarised (day, reason, messages, members)",
    "historical_summary": "one member's days 2-7 rolled up (end_day, days)",
    "merge": "facts + today + history merged into one context",
    "cache": "a cache lookup (cache, hit, shared)",
    "fallback": "memory served from a fallback (reason, served)",
    "llm_call": "one LLM request (provider, model, purpose, tokens, retries, latency)",
    "route": "a message classified by the intent router",
    "command": "a member command handled (or rate limited)",
    "remember": "a fact merged into a member's blob",
    "forget": "a statement pruned from a member's blob",
    "undo": "a member's last fact change reverted",
    "facts_conflict": "a concurrent fact write won the race; the merge is redone",
    "facts_merge_rejected": "a merge would lose facts (lost): the deterministic merge is used",
    "reply": "the bot answered a message (members, memories, prompt_tokens)",
    "tool_call": "the reply model called a memory tool (name, hits, latency)",
    "window_fold": "a channel's conversation window folded into its running summary",
    "window_decay": "a quiet channel's window summarised (soft) or cleared (hard)",
    "retention": "old raw messages deleted (count, batches, cutoff)",
    "privacy_export": "everything held about a member exported (count = rows)",
    "privacy_purge": "everything held about a member deleted (count = rows, stale_days)",
    "dashboard_action": "an admin action on the dashboard (action, guild, member/channel, outcome)",
    "dashboard_login": "a browser logged in to the dashboard with the printed token (or failed)",
    "privacy_optout": "a member opted out: purged, and kept out from now on (count = late rows)",
    "privacy_optin": "a member opted in (stored from now on)",
    "admin": "a /memory admin command (command); outcome refused for non-admins",
    "job": "a background job ran from the queue (job, attempt; guild_id and day for close_day)",
    "embed": "one embedding request for semantic recall (provider, model, count = texts)",
    "episodes_cut": "a channel's episodes cut again after new messages (changed = rows)",
    "episode_summaries": "closed episodes of a guild summarised in one call (episodes, stored)",
    "digest": "a guild-day's digest composed (outcome composed or empty; chars, stored)",
    "breaker": "an LLM model's circuit breaker changed (state open/half_open/closed, reason)",
}
