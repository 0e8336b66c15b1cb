"""Privacy and lifecycle: per-member export and purge, and retention of raw messages."""

from __future__ import annotations

from memory.privacy._desk import PrivacyDesk, describe_mine
from memory.privacy._export_purge import (
    AmbiguousMember,
    PrivacyError,
    PurgeReport,
    Resummarize,
    Subject,
    UnknownGuild,
    UnknownMember,
    export_member,
    export_summary,
    purge_member,
    purge_preview,
    resolve_guild,
    resolve_subject,
    to_json,
)
from memory.privacy._retention import (
    MIN_RETENTION_DAYS,
    RetentionJob,
    RetentionReport,
    run_retention,
)

__all__ = [
    "MIN_RETENTION_DAYS",
    "AmbiguousMember",
    "PrivacyDesk",
    "PrivacyError",
    "PurgeReport",
    "Resummarize",
    "RetentionJob",
    "RetentionReport",
    "Subject",
    "UnknownGuild",
    "UnknownMember",
    "describe_mine",
    "export_member",
    "export_summary",
    "purge_member",
    "purge_preview",
    "resolve_guild",
    "resolve_subject",
    "run_retention",
    "to_json",
]
