"""A member's context: facts + today + days 2-7 merged, cached, persisted, and served within a
reply's time budget with a fallback when the build is late or the LLM is down.
"""

from __future__ import annotations

from memory.context._config import ContextConfig
from memory.context._days import DayOutOfRange
from memory.context._manager import MemoryManager
from memory.context._report_text import format_report, report_details, report_heading

__all__ = [
    "ContextConfig",
    "DayOutOfRange",
    "MemoryManager",
    "format_report",
    "report_details",
    "report_heading",
]
