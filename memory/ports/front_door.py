"""The front door as a front end sees it: its faces, the protocols services satisfy as they
are, and the process's settings, clock and telemetry. `memory.wiring.open_memory` opens a
`Memory` that has all of these (and every service besides, for tests and benchmarks); bot/ is
typed against this protocol, so the type checker refuses a front end reaching past the faces
(or past what a protocol names of a service) into a service.
"""

from __future__ import annotations

from typing import Protocol

from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.ports.admin import GuildConfiguration, PrivacyRequests, SharedChannels
from memory.ports.chat import ChannelWindow, ChatIntake, StoredHistory
from memory.ports.conversation import Conversation
from memory.ports.imports import Imports
from memory.ports.member_commands import Commands, Directory, Facts, Recall
from memory.ports.operations import Operations, Retention, TokenBudget, Worker
from memory.ports.reports import Contexts, Episodes


class FrontDoor(Protocol):
    """What the Discord side (and the console, the CLI, the dashboard) may do with memory."""

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def telemetry(self) -> Telemetry: ...

    @property
    def writer(self) -> ChatIntake:
        """Messages, edits, deletes, members, guilds and channels in (`BatchedWriter`)."""
        ...

    @property
    def stored(self) -> StoredHistory:
        """Where a backfill starts, and what a reconcile compares (`StoredMessages`)."""
        ...

    @property
    def window(self) -> ChannelWindow:
        """What each channel's conversation window hears, and the edits and deletes it drops
        (`WindowKeeper`)."""
        ...

    @property
    def conversation(self) -> Conversation:
        """Replies out, and the channel windows they are written from."""
        ...

    @property
    def commands(self) -> Commands:
        """Remember, forget, undo, what-do-you-know by name (`MemoryCommands`)."""
        ...

    @property
    def facts(self) -> Facts:
        """The facts members asked the bot to remember (`FactService`)."""
        ...

    @property
    def recall(self) -> Recall:
        """The guild's search over what was said (`RecallService`)."""
        ...

    @property
    def members(self) -> Directory:
        """The guild's members by name and id (`MemberDirectory`)."""
        ...

    @property
    def privacy(self) -> PrivacyRequests:
        """Naming guilds and members; consent, export and purge (`PrivacyDesk`)."""
        ...

    @property
    def guild_settings(self) -> GuildConfiguration:
        """The guild's settings and channel names (`GuildSettingsCache`)."""
        ...

    @property
    def visibility(self) -> SharedChannels:
        """Which channels count as shared (`ChannelVisibility`)."""
        ...

    @property
    def episodes(self) -> Episodes:
        """Episodes, catch-ups, digests (`EpisodeService`)."""
        ...

    @property
    def manager(self) -> Contexts:
        """Members' contexts and closed days (`MemoryManager`)."""
        ...

    @property
    def worker(self) -> Worker:
        """Background jobs and their queue (`JobWorker`)."""
        ...

    @property
    def retention(self) -> Retention:
        """Deleting raw messages past RETENTION_DAYS (`RetentionJob`)."""
        ...

    @property
    def token_budget(self) -> TokenBudget:
        """LLM_DAILY_TOKEN_BUDGET and the day's tokens spent (`DailyTokenBudget`)."""
        ...

    @property
    def operations(self) -> Operations:
        """Usage, the job queue, retention, shards, command syncs, the LLM chain."""
        ...

    @property
    def imports(self) -> Imports:
        """Exports in, and what an import owes the rest of memory (`memorybot import`)."""
        ...
