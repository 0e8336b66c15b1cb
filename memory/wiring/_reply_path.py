"""The reply path's wiring: windows, recall, tools and episodes around one ReplyComposer.

Beside `_services.build_memory` so each stays small; every collaborator is a named object
(`WindowFolder`, `ReplySearch`) or a service's bound method.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

import asyncpg

from memory.context import MemoryManager
from memory.core.clock import Clock
from memory.core.settings import Settings
from memory.core.telemetry import Telemetry
from memory.core.tokens import estimated_chars
from memory.core.viewer import Viewer
from memory.episodes import EpisodeService
from memory.llm import MemoryLLM
from memory.members import MemberConsent, MemberDirectory, NameIndexCache
from memory.recall import Asking, RecallHit, RecallService
from memory.replies import (
    FULL_HITS,
    ConversationWindows,
    ReplyComposer,
    ReplyConfig,
    ReplyToolbox,
    Turn,
    build_tool_sources,
)
from memory.summaries import learned_lines


@dataclass(frozen=True)
class WindowFolder:
    """Folds a channel's oldest turns into its running summary with the LLM."""

    llm: MemoryLLM
    max_chars: int

    async def fold_turns(self, summary: str, turns: list[Turn]) -> str:
        return await self.llm.fold_window(
            summary=summary,
            turns=[turn.as_prompt_message() for turn in turns],
            max_chars=self.max_chars,
            guild_id=None,
        )


# Hits of a reply's search whose exchanges are read (merging matches that share a line, those
# the named members took part in first); later hits come alone. Reading the exchanges is most
# of a search's cost: 12 keeps a reply's search of 20 hits at the cost of the 12 it had
# (issue 43). Only the first FULL_HITS show their exchanges.
READ_EXCHANGES = 12


@dataclass(frozen=True)
class ReplySearch:
    """A reply's first search: the best hits with their exchanges, and a named member's own
    statements besides them (REPLY_RECALL_HITS, REPLY_STATEMENT_HITS); the nearest in meaning
    as far as they come within REPLY_SEMANTIC_WAIT_SECONDS. Past the hits shown whole, the
    named members' own lines come first (shown as found lines, they answer for their author)."""

    recall: RecallService
    hits: int
    statements: int
    semantic_wait: float

    async def recall_for_reply(
        self, guild_id: int, question: str, viewer: Viewer, asking: Asking
    ) -> list[RecallHit]:
        return await self.recall.search(
            guild_id,
            question,
            limit=self.hits,
            viewer=viewer,
            asking=asking,
            statements=self.statements,
            in_context=max(FULL_HITS, READ_EXCHANGES),
            own_first_after=FULL_HITS,
            semantic_wait=self.semantic_wait,
        )


def open_reply_composer(
    settings: Settings,
    clock: Clock,
    telemetry: Telemetry,
    pool: asyncpg.Pool,
    llm: MemoryLLM,
    manager: MemoryManager,
    episodes: EpisodeService,
    recall: RecallService,
    names: NameIndexCache,
    directory: MemberDirectory,
    consent: MemberConsent,
) -> ReplyComposer:
    """The reply path: per-channel windows folded by the LLM, memories within the budget;
    `recall` and its member `names` are the ones the member commands' search uses."""
    windows = ConversationWindows(
        # The window keeps its summary within a third of its token budget.
        WindowFolder(llm, max_chars=estimated_chars(settings.window_token_budget) // 3),
        clock,
        token_budget=settings.window_token_budget,
        soft_decay=timedelta(minutes=settings.window_soft_decay_minutes),
        hard_decay=timedelta(minutes=settings.window_hard_decay_minutes),
        telemetry=telemetry,
    )
    toolbox = ReplyToolbox(
        build_tool_sources(recall, directory, manager, partial(learned_lines, pool)),
        telemetry,
        budget_seconds=settings.reply_memory_budget_seconds * 2,
        max_calls=settings.reply_tool_calls,
    )
    return ReplyComposer(
        memory=manager,
        llm=llm,
        windows=windows,
        names=names,
        member_rows=directory,
        config=ReplyConfig.from_settings(settings),
        telemetry=telemetry,
        recall=ReplySearch(
            recall,
            settings.reply_recall_hits,
            settings.reply_statement_hits,
            settings.reply_semantic_wait_seconds,
        ),
        toolbox=toolbox if settings.reply_tool_calls > 0 else None,
        episode=episodes,
        remembered=consent.remembered,
    )
