"""The front door as a front end sees it: six faces and the process's settings, clock and
telemetry. `memory.wiring.open_memory` opens a `Memory` that has all of these (and every
service besides, for tests and benchmarks); bot/ is typed against this protocol, so the type
checker refuses a front end reaching past the faces into a service.
"""

from __future__ import annotations

from typing import Protocol

from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports.admin import Administration
from memory.ports.chat import ChatEvents
from memory.ports.conversation import Conversation
from memory.ports.member_commands import MemberCommands
from memory.ports.operations import Operations
from memory.ports.reports import Reports


class FrontDoor(Protocol):
    """What the Discord side (and the console, the CLI, the dashboard) may do with memory."""

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def telemetry(self) -> Telemetry: ...

    @property
    def chat(self) -> ChatEvents:
        """Messages, edits, deletes, members, guilds and channels in."""
        ...

    @property
    def conversation(self) -> Conversation:
        """Replies out, and the channel windows they are written from."""
        ...

    @property
    def member_commands(self) -> MemberCommands:
        """Remember, forget, undo, what-do-you-know, search, and the member directory."""
        ...

    @property
    def admin(self) -> Administration:
        """Privacy requests, guild settings, channel visibility."""
        ...

    @property
    def reports(self) -> Reports:
        """Episodes, catch-ups, digests, closed days."""
        ...

    @property
    def operations(self) -> Operations:
        """Usage, the job queue, retention, imports, shards, command syncs, the LLM chain."""
        ...
