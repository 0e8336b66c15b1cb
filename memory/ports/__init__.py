"""The ports: what a front end (the Discord adapter in `bot/`, the console, the CLI, the
dashboard) may do with memory, and the value types and renderers it shows.

    async with open_memory(settings, clock=SystemClock()) as memory:   # memory.wiring
        memory.writer.submit(message)
        answer = await memory.conversation.answer(addressed, outlet)

Faces, each a small class owning use cases over the services that do the work:
`Conversation` (the answer to every message addressed to the bot) and `Operations` (usage,
jobs, retention, imports, shards). Where a front end only needs a service's own methods, a
protocol names them and the service satisfies it as it is: `ChatIntake`, `StoredHistory` and
`ChannelWindow` (chat events in, the backfill's reads, the window replies are written from),
`Commands`,
`Facts`, `Recall`, `Directory` (what members ask), `Episodes` (episodes, catch-ups, digests),
`Contexts` (members' contexts, closed days), `PrivacyRequests` (consent, export, purge),
`GuildConfiguration` (guild settings) and `SharedChannels` (channel visibility). `FrontDoor` is the
protocol a front end is typed against. bot/ imports memory only through this package, the core
and the language package (import-linter holds it to that, `tests/test_layering.py`); the entry
points that open memory also reach `memory.wiring.open_memory`.
"""

from __future__ import annotations

from memory.commands import CommandResult, RepliedMessage
from memory.context import DayOutOfRange, format_report, report_details, report_heading
from memory.core.report import ContextReport
from memory.database import (
    DatabaseUnavailable,
    ShardTaken,
    check_database,
    describe_database,
    embedded_exists,
    migrate_database,
    serve_database,
)
from memory.episodes import (
    Episode,
    InvalidDigestTime,
    PendingDigest,
    asks_catch_up,
    listing_line,
    parse_digest_time,
)
from memory.guilds import GuildSettings, InvalidSetting, describe_settings
from memory.ingest import ExportFormatError, ExportImporter, ImportResult, is_transient
from memory.llm import breaker_report
from memory.ports._lookup import NameLookup
from memory.ports.admin import GuildConfiguration, PrivacyRequests, SharedChannels
from memory.ports.answers import (
    APOLOGY,
    COMMAND_FAILED,
    SLOW_DOWN,
    Addressed,
    Answer,
    AnswerKind,
    Outlet,
)
from memory.ports.chat import ChannelWindow, ChatIntake, StoredHistory
from memory.ports.conversation import Conversation
from memory.ports.front_door import FrontDoor
from memory.ports.imports import (
    CLOSED,
    EMBEDDED,
    EPISODES,
    Imports,
    ImportSettings,
    ImportWatcher,
    Settled,
    imported_spans,
)
from memory.ports.member_commands import Commands, Directory, Facts, Recall
from memory.ports.operations import (
    AdminViews,
    JobQueueView,
    Operations,
    Retention,
    TokenBudget,
    Worker,
)
from memory.ports.reports import Contexts, Episodes
from memory.privacy import (
    MIN_RETENTION_DAYS,
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

__all__ = [
    "APOLOGY",
    "CLOSED",
    "COMMAND_FAILED",
    "EMBEDDED",
    "EPISODES",
    "MIN_RETENTION_DAYS",
    "OPS",
    "SLOW_DOWN",
    "TELEMETRY_FILE",
    "Addressed",
    "AdminViews",
    "Answer",
    "AnswerKind",
    "ChannelWindow",
    "ChatIntake",
    "CommandResult",
    "Commands",
    "ContextReport",
    "Contexts",
    "Conversation",
    "DatabaseUnavailable",
    "DayOutOfRange",
    "DayResult",
    "Directory",
    "Episode",
    "Episodes",
    "EventFilter",
    "ExportFormatError",
    "ExportImporter",
    "Facts",
    "FileFollower",
    "FrontDoor",
    "GuildConfiguration",
    "GuildSettings",
    "ImportResult",
    "ImportSettings",
    "ImportWatcher",
    "Imports",
    "IncomingMessage",
    "InvalidDigestTime",
    "InvalidSetting",
    "JobQueueView",
    "NameLookup",
    "Operations",
    "Outlet",
    "PendingDigest",
    "PrivacyError",
    "PrivacyRequests",
    "PurgeReport",
    "Recall",
    "RecallHit",
    "RepliedMessage",
    "ReplyResult",
    "Retention",
    "RetentionReport",
    "Settled",
    "ShardTaken",
    "SharedChannels",
    "StoredHistory",
    "Subject",
    "TokenBudget",
    "UsageRollup",
    "Worker",
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
    "imported_spans",
    "is_transient",
    "listing_line",
    "migrate_database",
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
