"""memorybot's memory, behind one front door.

    async with open_memory(settings, clock=SystemClock()) as memory:
        memory.writer.submit(message)
        result = await memory.commands.handle(...)
        reply = await memory.replies.compose(...)

`open_memory` opens everything from Settings and closes it in order; the returned `Memory`
holds every service (never None). Front ends (the Discord adapter in `bot/`, the console, the
CLI) import this package and `memory.core`, nothing else: the capability packages below it
(ingest, facts, commands, members, summaries, context, replies, llm, privacy, telemetry,
guilds) are reached through the services, and the names re-exported here are the value types
and renderers a front end shows. `tests/test_layering.py` holds everyone to that.

Names load on first use (PEP 562), so importing a leaf such as `memory.core.models` (as `db/`
does) does not open the whole package tree.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory._admin import AdminViews, admin_views
    from memory._database import (
        DatabaseUnavailable,
        check_database,
        describe_database,
        embedded_exists,
        serve_database,
    )
    from memory._lookup import NameLookup
    from memory._open import Memory, migrate_database, open_memory
    from memory._shards import ShardTaken
    from memory.commands import CommandResult, RepliedMessage
    from memory.context import DayOutOfRange, format_report, report_details, report_heading
    from memory.core.report import ContextReport
    from memory.episodes import (
        Episode,
        InvalidDigestTime,
        PendingDigest,
        asks_catch_up,
        listing_line,
        parse_digest_time,
    )
    from memory.guilds import GuildSettings, InvalidSetting, describe_settings
    from memory.ingest import ExportFormatError, ImportResult, is_transient
    from memory.llm import breaker_report
    from memory.privacy import (
        PrivacyError,
        PurgeReport,
        RetentionReport,
        Subject,
        describe_mine,
        export_summary,
        to_json,
    )
    from memory.recall import RecallHit
    from memory.replies import IncomingMessage, ReplyResult
    from memory.summaries import DayResult
    from memory.telemetry import (
        OPS,
        TELEMETRY_FILE,
        EventFilter,
        FileFollower,
        UsageRollup,
        build_stats,
        check_ops,
        filter_events,
        follow_events,
        outcome_style,
        parse_since,
        read_events,
        render_header,
        render_row,
        render_stats,
    )

# name -> module that defines it, loaded on first attribute access.
_EXPORTS: dict[str, str] = {
    "AdminViews": "memory._admin",
    "admin_views": "memory._admin",
    "CommandResult": "memory.commands",
    "DatabaseUnavailable": "memory._database",
    "check_database": "memory._database",
    "describe_database": "memory._database",
    "embedded_exists": "memory._database",
    "ContextReport": "memory.core.report",
    "DayResult": "memory.summaries",
    "DayOutOfRange": "memory.context",
    "Episode": "memory.episodes",
    "InvalidDigestTime": "memory.episodes",
    "PendingDigest": "memory.episodes",
    "asks_catch_up": "memory.episodes",
    "listing_line": "memory.episodes",
    "parse_digest_time": "memory.episodes",
    "EventFilter": "memory.telemetry",
    "ExportFormatError": "memory.ingest",
    "FileFollower": "memory.telemetry",
    "GuildSettings": "memory.guilds",
    "ImportResult": "memory.ingest",
    "IncomingMessage": "memory.replies",
    "InvalidSetting": "memory.guilds",
    "Memory": "memory._open",
    "NameLookup": "memory._lookup",
    "OPS": "memory.telemetry",
    "PrivacyError": "memory.privacy",
    "PurgeReport": "memory.privacy",
    "RepliedMessage": "memory.commands",
    "RecallHit": "memory.recall",
    "ReplyResult": "memory.replies",
    "RetentionReport": "memory.privacy",
    "ShardTaken": "memory._shards",
    "Subject": "memory.privacy",
    "TELEMETRY_FILE": "memory.telemetry",
    "UsageRollup": "memory.telemetry",
    "breaker_report": "memory.llm",
    "build_stats": "memory.telemetry",
    "check_ops": "memory.telemetry",
    "describe_settings": "memory.guilds",
    "describe_mine": "memory.privacy",
    "export_summary": "memory.privacy",
    "filter_events": "memory.telemetry",
    "follow_events": "memory.telemetry",
    "format_report": "memory.context",
    "is_transient": "memory.ingest",
    "migrate_database": "memory._open",
    "open_memory": "memory._open",
    "serve_database": "memory._database",
    "outcome_style": "memory.telemetry",
    "parse_since": "memory.telemetry",
    "read_events": "memory.telemetry",
    "render_header": "memory.telemetry",
    "render_row": "memory.telemetry",
    "render_stats": "memory.telemetry",
    "report_details": "memory.context",
    "report_heading": "memory.context",
    "to_json": "memory.privacy",
}

__all__ = [
    "OPS",
    "TELEMETRY_FILE",
    "AdminViews",
    "CommandResult",
    "ContextReport",
    "DatabaseUnavailable",
    "DayOutOfRange",
    "DayResult",
    "Episode",
    "EventFilter",
    "ExportFormatError",
    "FileFollower",
    "GuildSettings",
    "ImportResult",
    "IncomingMessage",
    "InvalidDigestTime",
    "InvalidSetting",
    "Memory",
    "NameLookup",
    "PendingDigest",
    "PrivacyError",
    "PurgeReport",
    "RecallHit",
    "RepliedMessage",
    "ReplyResult",
    "RetentionReport",
    "ShardTaken",
    "Subject",
    "UsageRollup",
    "admin_views",
    "asks_catch_up",
    "breaker_report",
    "build_stats",
    "check_database",
    "check_ops",
    "describe_database",
    "describe_mine",
    "describe_settings",
    "embedded_exists",
    "export_summary",
    "filter_events",
    "follow_events",
    "format_report",
    "is_transient",
    "listing_line",
    "migrate_database",
    "open_memory",
    "outcome_style",
    "parse_digest_time",
    "parse_since",
    "read_events",
    "render_header",
    "render_row",
    "render_stats",
    "report_details",
    "report_heading",
    "serve_database",
    "to_json",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
