"""Telemetry sinks (stdout, rotating file, OpenTelemetry), the operation catalogue, the
`/memory stats` roll-up and the `telemetry tail` view.
"""

from __future__ import annotations

from memory.telemetry._catalogue import FIELDS, OPS, TELEMETRY_FILE
from memory.telemetry._sinks import AttachedSinks, RotatingFileSink, StreamSink, attach_sinks
from memory.telemetry._stats import UsageRollup, build_stats, render_stats
from memory.telemetry._view import (
    OUTCOME_STYLES,
    EventFilter,
    FileFollower,
    NameSource,
    check_ops,
    filter_events,
    follow_events,
    outcome_style,
    parse_since,
    read_events,
    render_header,
    render_row,
)

__all__ = [
    "FIELDS",
    "OPS",
    "OUTCOME_STYLES",
    "TELEMETRY_FILE",
    "AttachedSinks",
    "EventFilter",
    "FileFollower",
    "NameSource",
    "RotatingFileSink",
    "StreamSink",
    "UsageRollup",
    "attach_sinks",
    "build_stats",
    "check_ops",
    "filter_events",
    "follow_events",
    "outcome_style",
    "parse_since",
    "read_events",
    "render_header",
    "render_row",
    "render_stats",
]
