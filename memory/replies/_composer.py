"""Reply composer: who matters for this message, their memories, the window, one LLM call.

Discord-free: the replies cog and the console both call `ReplyComposer.compose`. Memory is
gathered within the reply time budget; a member whose memory is not ready gets the manager's
fallback (or nothing) rather than delaying the reply.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, InitVar, dataclass
from typing import Protocol

from memory.core.models import Member
from memory.core.ratelimit import Admission, RateLimiter
from memory.core.telemetry import Telemetry
from memory.core.tokens import estimate_tokens, trim_to_tokens
from memory.core.viewer import Viewer
from memory.llm import MemoryLLM
from memory.members import NameIndexCache, mentioned_ids, render_mentions
from memory.recall import Asking, RecallHit, worth_searching
from memory.replies._budget import PromptBudget
from memory.replies._gate import WindowGate
from memory.replies._keeper import MemberRows, WindowKeeper
from memory.replies._message import IncomingMessage, ReplyConfig, ReplyResult, reader_of
from memory.replies._prompt import fit_prompt, memories_xml, render_reply
from memory.replies._recalled import recalled_inputs, render_recalled
from memory.replies._tools import ReplyToolbox
from memory.replies._window import ConversationWindows, WindowView
from prompts.loader import Raw, element, join

_log = logging.getLogger(__name__)


class MemorySource(Protocol):
    async def get_memories(
        self, guild_id: int, user_id: int, *, budget: float, wait_in_queue: bool = True
    ) -> str | None: ...


# (guild id, user id) -> may the member's words be kept (not opted out, opted in where asked).
Remembered = Callable[[int, int], Awaitable[bool]]


class ReplyRecall(Protocol):
    """The reply's search (wired to `ReplySearch`)."""

    async def recall_for_reply(
        self, guild_id: int, question: str, viewer: Viewer, asking: Asking
    ) -> list[RecallHit]:
        """What was said about the question, best first: only from channels the viewer may
        read, never the asking message, questions to the bot or its replies."""
        ...


class EpisodeMemory(Protocol):
    """The reply's working memory (wired to `EpisodeService`)."""

    async def reply_context(
        self, guild_id: int, channel_id: int, text: str, viewer: Viewer | None
    ) -> str:
        """The channel's current episode, and any episodes the text asks about."""
        ...


@dataclass(frozen=True)
class _Gathered:
    """What one reply's prompt is made of, gathered concurrently."""

    window: WindowView
    members: dict[int, Member]
    memories: dict[int, str]
    hits: list[RecallHit]
    episode_text: str


@dataclass(eq=False)
class ReplyComposer:
    """Builds the XML reply prompt and asks the `reply` purpose for the answer."""

    _: KW_ONLY
    memory: MemorySource
    llm: MemoryLLM
    windows: ConversationWindows
    names: NameIndexCache
    member_rows: MemberRows
    config: ReplyConfig
    bot_user_id: int | None = None
    telemetry: Telemetry
    recall: ReplyRecall | None = None
    toolbox: ReplyToolbox | None = None
    episode: EpisodeMemory | None = None
    remembered: InitVar[Remembered | None] = None

    def __post_init__(self, remembered: Remembered | None) -> None:
        self._composing = 0  # replies composing right now (the burst rule of `_budget`)
        self._searching = asyncio.Semaphore(self.config.parallel_recalls)
        self._member_limit = RateLimiter(self.config.replies_per_minute, clock=self.windows.clock)
        self._channel_limit = RateLimiter(
            self.config.channel_replies_per_minute, clock=self.windows.clock
        )
        # What enters the window and what leaves it (deletes, edits, opt-outs, forgets).
        self.keeper = WindowKeeper(
            self.windows,
            WindowGate(remembered),
            self.member_rows,
            bot_name=self.config.bot_name,
            names=self.names,
        )

    def admit(self, message: IncomingMessage) -> Admission:
        """May this message get a reply? Each reply is an LLM call, so a member (or a channel)
        sending a burst is answered at most REPLIES_PER_MINUTE (CHANNEL_REPLIES_PER_MINUTE)
        times a minute; the first refusal is told once (WARN), the rest get silence."""
        outcome: Admission = self._member_limit.admit(message.guild_id, message.author_id)
        if outcome is Admission.ALLOWED:
            outcome = self._channel_limit.admit(message.guild_id, message.channel_id)
        if outcome is not Admission.ALLOWED:
            self.telemetry.emit(
                "reply",
                outcome="rate_limited",
                guild_id=message.guild_id,
                channel_id=message.channel_id,
                user_id=message.author_id,
            )
        return outcome

    async def relevant_members(self, message: IncomingMessage) -> list[int]:
        """Author first, then mentioned members, then members named in the text."""
        index = await self.names.get(message.guild_id)
        candidates = [
            message.author_id,
            *message.mention_ids,
            *mentioned_ids(message.content),
            *index.named_in(message.content),
        ]
        ordered: list[int] = []
        for user_id in candidates:
            if user_id != self.bot_user_id and user_id not in ordered:
                ordered.append(user_id)
        return ordered[: self.config.max_members]

    @property
    def busy(self) -> bool:
        """A burst: more than `busy_replies` replies composing at once."""
        return self._composing > self.config.busy_replies

    def _budget(self) -> float:
        """How long a reply starting now waits for its memory. In a burst every reply's memory
        competes for the same event loop and pool, so waiting the full budget would queue each
        reply behind everyone's memory: past `busy_replies` composing, a reply degrades (what is
        ready, the fallback, or nothing) after `busy_budget_seconds` instead. The builds go on in
        the background and serve the next reply warm."""
        budget = self.config.memory_budget_seconds
        if self.busy:
            return min(budget, self.config.busy_budget_seconds)
        return budget

    async def _gather_memories(
        self, guild_id: int, user_ids: list[int], budget: float, *, busy: bool
    ) -> dict[int, str]:
        """Every member's context within the time budget; late or failed ones are skipped. In
        a burst (`busy`) a member whose build would wait in the queue gets the fallback."""
        tasks = {
            user_id: asyncio.ensure_future(
                self.memory.get_memories(guild_id, user_id, budget=budget, wait_in_queue=not busy)
            )
            for user_id in user_ids
        }
        try:
            # get_memories races its own budget; the margin covers database reads.
            done, pending = await asyncio.wait(tasks.values(), timeout=budget + min(0.5, budget))
        finally:
            # Late ones, and all of them when the reply itself is cancelled or fails: no
            # member's lookup outlives the reply that asked for it.
            for task in tasks.values():
                if not task.done():
                    task.cancel()
        memories: dict[int, str] = {}
        for user_id, task in tasks.items():
            if task in done and not task.cancelled() and task.exception() is None:
                text = task.result()
                if text:
                    memories[user_id] = text[: self.config.context_max_chars]
            elif task in done and not task.cancelled():
                _log.warning("memory for %s failed: %s", user_id, task.exception())
        if pending:
            self.telemetry.emit(
                "fallback", guild_id=guild_id, reason="reply_budget", members=len(pending)
            )
        return memories

    async def _recall_hits(
        self, message: IncomingMessage, text: str, budget: float
    ) -> list[RecallHit]:
        """What was said before about what the message asks or names (every message but
        greetings and thanks), within the memory time budget; nothing on failure."""
        if self.recall is None or not worth_searching(text):
            return []
        asking = Asking(message.message_id, self.bot_user_id)
        deadline = asyncio.timeout(budget)
        try:
            async with deadline, self._searching:
                return await self.recall.recall_for_reply(
                    message.guild_id, text, reader_of(message), asking
                )
        except Exception as exc:  # recall is a help, never a reason not to answer
            if isinstance(exc, TimeoutError) and deadline.expired():
                # The budget at work (in a burst, most replies): telemetry counts it; a log
                # line per reply would bury the warnings that matter.
                _log.info("recall for a reply ran past its %.2f s budget", budget)
                self.telemetry.emit("fallback", guild_id=message.guild_id, reason="recall_budget")
            else:
                _log.warning("recall for a reply failed: %s", type(exc).__name__)
            return []

    async def compose(self, message: IncomingMessage) -> ReplyResult:
        """Answer `message`. Raises LLMError only when every provider failed."""
        self._composing += 1
        try:
            return await self._compose(message, self._budget(), busy=self.busy)
        finally:
            self._composing -= 1

    async def _compose(self, message: IncomingMessage, budget: float, *, busy: bool) -> ReplyResult:
        started = time.perf_counter()
        user_ids = await self.relevant_members(message)
        found = await self._gather(message, user_ids, budget, busy=busy)
        names = {user_id: member.display_name for user_id, member in found.members.items()}
        message_text = render_mentions(message.content, names)
        # Fixed parts are never trimmed: persona, rules and the message itself.
        tokens = PromptBudget(
            self.config.prompt_token_budget, self.config.window_token_budget
        ).with_fixed(render_reply(self.config, message_text, message, Raw(""), WindowView("", ())))
        memories_xml, recalled_lines = self._memory_parts(message, user_ids, found, tokens)
        window_budget = tokens.window(estimate_tokens(memories_xml))
        prompt, fitted = fit_prompt(
            self.config,
            message_text,
            message,
            memories_xml,
            found.window.fitted(window_budget),
            tokens,
        )
        inputs: dict[str, object] = {
            "message": message_text,
            "author_name": message.author_name,
            "bot_name": self.config.bot_name,
            "memories": [
                {"user_id": uid, "name": names.get(uid, f"user {uid}"), "context": context}
                for uid in user_ids
                if (context := found.memories.get(uid)) is not None
            ],
            "window_summary": fitted.summary,
            "turns": [{"author": t.author_name, "content": t.content} for t in fitted.turns],
            "recalled": recalled_inputs(recalled_lines, message.guild_id),
        }
        tools = None
        if self.toolbox is not None:
            tools = self.toolbox.for_reply(message.guild_id, reader_of(message))
        text = await self.llm.reply(
            prompt=prompt, inputs=inputs, guild_id=message.guild_id, tools=tools, urgent=self.busy
        )
        prompt_tokens = estimate_tokens(prompt)
        self.telemetry.emit(
            "reply",
            guild_id=message.guild_id,
            channel_id=message.channel_id,
            user_id=message.author_id,  # who was answered (the tail's member column)
            members=len(user_ids),
            memories=len(found.memories),
            prompt_tokens=prompt_tokens,
            window_turns=len(fitted.turns),
            recalled=len({number for number, _ in recalled_lines}),
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return ReplyResult(text, prompt, user_ids, len(found.memories), prompt_tokens)

    async def _gather(
        self, message: IncomingMessage, user_ids: list[int], budget: float, *, busy: bool
    ) -> _Gathered:
        """Everything a prompt is made of, at once: the members' memories, recall, the episode
        (each within `budget`), the window and the members' names."""
        memories_task = asyncio.ensure_future(
            self._gather_memories(message.guild_id, user_ids, budget, busy=busy)
        )
        recall_task = asyncio.ensure_future(self._recall_hits(message, message.content, budget))
        episode_task = asyncio.ensure_future(self._episode_text(message, budget))
        try:
            window = await self.windows.view(message.channel_id)
            # The message itself may already be in the window (observed first): it is <message>.
            window = WindowView(
                window.summary, tuple(t for t in window.turns if t.message_id != message.message_id)
            )
            mention_targets = sorted(set(mentioned_ids(message.content)) | set(user_ids))
            members = await self.member_rows.get(message.guild_id, mention_targets)
            return _Gathered(
                window, members, await memories_task, await recall_task, await episode_task
            )
        finally:
            recall_task.cancel()
            episode_task.cancel()

    def _memory_parts(
        self,
        message: IncomingMessage,
        user_ids: list[int],
        found: _Gathered,
        tokens: PromptBudget,
    ) -> tuple[Raw, list[tuple[int, RecallHit]]]:
        """The members' contexts, the recalled lines and the episode, each within its share."""
        members = memories_xml(user_ids, found.members, found.memories, tokens.members)
        recalled, recalled_lines = render_recalled(
            found.hits, message.guild_id, budget=tokens.recalled, known=found.memories.values()
        )
        parts = [part for part in (members, recalled) if part]
        if found.episode_text and tokens.episode > 0:
            parts.append(element("episode", trim_to_tokens(found.episode_text, tokens.episode)))
        return join(parts) if parts else Raw(""), recalled_lines

    async def _episode_text(self, message: IncomingMessage, budget: float) -> str:
        """The channel's current episode as working memory (and any asked about), within the
        memory time budget; nothing on failure."""
        if self.episode is None:
            return ""
        try:
            async with asyncio.timeout(budget):
                text = await self.episode.reply_context(
                    message.guild_id, message.channel_id, message.content, reader_of(message)
                )
        except Exception as exc:  # working memory is a help, never a reason not to answer
            _log.warning("episode memory for a reply failed: %s", type(exc).__name__)
            return ""
        return text

    async def observe(self, message: IncomingMessage) -> None:
        """Add a channel message (a member's or the bot's own reply) to the window; an
        opted-out member's words, and the bot's answers to them, never enter it."""
        from_bot = self.bot_user_id is not None and message.author_id == self.bot_user_id
        await self.keeper.observe(message, from_bot=from_bot)
