"""Per-channel conversation window: recent turns verbatim, older ones folded into a summary.

The window keeps the bot's replies aware of the conversation without growing without bound:
past 70% of its token budget the oldest half is folded into a running summary (one LLM call);
after `soft` minutes of silence everything is folded; after `hard` minutes it is cleared.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import KW_ONLY, InitVar, dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from cachetools import TTLCache

from memory.core.clock import Clock
from memory.core.telemetry import Telemetry
from memory.core.text import mentions_name
from memory.core.tokens import estimate_tokens, trim_to_tokens
from memory.language import drop_restating
from memory.llm import PromptMessage

_log = logging.getLogger(__name__)

FOLD_THRESHOLD = 0.7
# The longest a view waits for turns announced before it (a consent read, a name lookup).
ARRIVAL_WAIT_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Turn:
    message_id: int
    author_id: int
    author_name: str
    content: str
    at: datetime
    # The message this turn answers (the bot's reply): it leaves the window with that message.
    reply_to: int | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.author_name) + estimate_tokens(self.content) + 4

    def as_prompt_message(self) -> PromptMessage:
        return PromptMessage(
            message_id=self.message_id,
            timestamp=self.at,
            author_id=self.author_id,
            author_name=self.author_name,
            content=self.content,
        )


class WindowFolding(Protocol):
    """Folds a channel's oldest turns into its running summary (wired to `WindowFolder`,
    which asks the LLM's `fold_window`)."""

    async def fold_turns(self, summary: str, turns: list[Turn]) -> str:
        """The new running summary: `summary` with what `turns` said folded in."""
        ...


@dataclass
class ChannelWindow:
    summary: str = ""
    turns: list[Turn] = field(default_factory=list)
    last_activity: datetime | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    guild_id: int | None = None
    # What the running summary was folded from: a deleted or edited message, or an opted-out
    # member, among them means the summary may carry their words and is dropped.
    folded_ids: set[int] = field(default_factory=set)
    folded_authors: set[int] = field(default_factory=set)
    # Turns on their way in (their author's consent being read): a view waits for them, so
    # the window keeps the channel's order whatever each turn had to look up.
    arriving: list[asyncio.Future[None]] = field(default_factory=list)

    def holds_any(self, message_ids: set[int]) -> bool:
        """Whether any of the messages is a turn here or was folded into the summary."""
        return bool(self.folded_ids & message_ids) or any(
            turn.message_id in message_ids for turn in self.turns
        )

    def clear_summary(self) -> None:
        self.summary = ""
        self.folded_ids.clear()
        self.folded_authors.clear()

    def tokens(self) -> int:
        return estimate_tokens(self.summary) + sum(turn.tokens for turn in self.turns)


@dataclass(frozen=True)
class WindowView:
    """What a prompt gets: the running summary and the verbatim turns, oldest first."""

    summary: str
    turns: tuple[Turn, ...]

    def tokens(self) -> int:
        return estimate_tokens(self.summary) + sum(turn.tokens for turn in self.turns)

    def fitted(self, budget: int) -> WindowView:
        """Drop the oldest turns, then shorten the summary, until the view fits `budget`."""
        turns = list(self.turns)
        summary = self.summary
        while turns and estimate_tokens(summary) + sum(t.tokens for t in turns) > budget:
            turns.pop(0)
        if estimate_tokens(summary) + sum(t.tokens for t in turns) > budget:
            summary = trim_to_tokens(summary, budget - sum(t.tokens for t in turns))
        return WindowView(summary, tuple(turns))


@dataclass(eq=False)
class ConversationWindows:
    """All channels' windows of one process. Folding failures degrade to dropping old turns."""

    folder: WindowFolding
    clock: Clock
    _: KW_ONLY
    token_budget: int
    soft_decay: timedelta
    hard_decay: timedelta
    telemetry: Telemetry
    max_channels: InitVar[int] = 2_000

    def __post_init__(self, max_channels: int) -> None:
        # A window silent for `hard_decay` would be cleared anyway, so it is dropped from memory
        # then; past `max_channels` the least recently active goes first (memory stays flat
        # with thousands of channels).
        self._channels: TTLCache[int, ChannelWindow] = TTLCache(
            maxsize=max_channels,
            ttl=self.hard_decay.total_seconds(),
            timer=lambda: self.clock.now().timestamp(),
        )

    def __len__(self) -> int:
        """Windows held in memory."""
        return len(self._channels)

    def _window(self, channel_id: int) -> ChannelWindow:
        window = self._channels.get(channel_id) or ChannelWindow()
        self._channels[channel_id] = window  # (re)inserting restarts its time to live
        return window

    async def add(self, channel_id: int, turn: Turn, *, guild_id: int | None = None) -> None:
        """Append a turn (after applying decay), folding the oldest half past 70% of budget."""
        window = self._window(channel_id)
        if guild_id is not None:
            window.guild_id = guild_id
        async with window.lock:
            await self._decay(channel_id, window)
            window.turns.append(turn)
            window.last_activity = self.clock.now()
            if window.tokens() > FOLD_THRESHOLD * self.token_budget and len(window.turns) > 1:
                half = max(1, len(window.turns) // 2)
                await self._fold(channel_id, window, half, reason="budget")

    def arriving(self, channel_id: int) -> Callable[[], None]:
        """Announce a turn on its way in, before anything is awaited for it; call what is
        returned once it was added (or kept out). A view waits for the turns announced
        before it, so a message sent just before a question is in the question's window."""
        window = self._window(channel_id)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        window.arriving.append(future)

        def arrived() -> None:
            if not future.done():
                future.set_result(None)
            if future in window.arriving:
                window.arriving.remove(future)

        return arrived

    async def view(self, channel_id: int) -> WindowView:
        """The current window after decay; an unknown channel has an empty one."""
        window = self._window(channel_id)
        if window.arriving:
            await asyncio.wait(list(window.arriving), timeout=ARRIVAL_WAIT_SECONDS)
        async with window.lock:
            await self._decay(channel_id, window)
            return WindowView(window.summary, tuple(window.turns))

    async def _decay(self, channel_id: int, window: ChannelWindow) -> None:
        if window.last_activity is None:
            return
        silence = self.clock.now() - window.last_activity
        if silence >= self.hard_decay:
            window.clear_summary()
            window.turns, window.last_activity = [], None
            self.telemetry.emit("window_decay", channel_id=channel_id, kind="hard")
        elif silence >= self.soft_decay and window.turns:
            await self._fold(channel_id, window, len(window.turns), reason="silence")
            self.telemetry.emit("window_decay", channel_id=channel_id, kind="soft")

    async def _fold(self, channel_id: int, window: ChannelWindow, count: int, reason: str) -> None:
        folded, kept = window.turns[:count], window.turns[count:]
        try:
            summary = await self.folder.fold_turns(window.summary, folded)
        except Exception as exc:  # any failure: keep the budget by dropping, never raise
            _log.warning("window fold failed in channel %s: %s", channel_id, exc)
            self.telemetry.emit(
                "window_fold", outcome="error", channel_id=channel_id, reason=reason, error=str(exc)
            )
            window.turns = kept
            return
        window.summary = trim_to_tokens(summary, self.token_budget // 3)
        window.folded_ids.update(turn.message_id for turn in folded)
        window.folded_authors.update(turn.author_id for turn in folded)
        window.turns = kept
        self.telemetry.emit(
            "window_fold", channel_id=channel_id, reason=reason, turns_folded=len(folded)
        )

    # --- gone means gone: deletes, edits, opt-outs, purges and forgets ------------------------

    def _held(self, guild_id: int | None) -> list[tuple[int, ChannelWindow]]:
        return [
            (channel_id, window)
            for channel_id, window in list(self._channels.items())
            if guild_id is None or window.guild_id in (None, guild_id)
        ]

    async def drop_messages(self, message_ids: Collection[int]) -> int:
        """Deleted messages leave every window, with the bot's replies to them; a summary
        folded from one of them is dropped. How many turns went."""
        gone = set(message_ids)
        removed = 0
        for _, window in self._held(None):
            if not window.holds_any(gone):
                continue  # (a fold in progress still lists its turns: it is waited for)
            async with window.lock:
                removed += _remove(window, lambda turn: turn.message_id in gone)
                if window.folded_ids & gone:
                    window.clear_summary()
        return removed

    async def edit_message(self, message_id: int, content: str) -> bool:
        """An edited message's old text leaves the window: its turn says the new text, and a
        summary folded from the old one is dropped. Whether the window held it."""
        held = False
        for _, window in self._held(None):
            if not window.holds_any({message_id}):
                continue
            async with window.lock:
                for index, turn in enumerate(window.turns):
                    if turn.message_id == message_id:
                        window.turns[index] = dataclasses.replace(turn, content=content)
                        held = True
                if message_id in window.folded_ids:
                    window.clear_summary()
                    held = True
        return held

    async def drop_author(self, guild_id: int, user_id: int) -> int:
        """An opted-out or purged member's turns (and the bot's answers to them) leave the
        guild's windows; a summary folded from any of their turns is dropped."""
        removed = 0
        for _, window in self._held(guild_id):
            if user_id not in window.folded_authors and all(
                turn.author_id != user_id for turn in window.turns
            ):
                continue
            async with window.lock:
                removed += _remove(window, lambda turn: turn.author_id == user_id)
                if user_id in window.folded_authors:
                    window.clear_summary()
        return removed

    async def drop_restating(
        self, guild_id: int, user_id: int, statement: str, names: Iterable[str]
    ) -> int:
        """A forgotten statement leaves the guild's windows: turns by the member, or naming
        them, that restate it (the forget command itself too), and such summary sentences."""
        names = tuple(name for name in names if name)

        def concerns(turn: Turn) -> bool:
            return turn.author_id == user_id or any(
                mentions_name(turn.content, name) for name in names
            )

        removed = 0
        for _, window in self._held(guild_id):
            async with window.lock:
                cut: set[int] = set()
                for index, turn in enumerate(window.turns):
                    if not concerns(turn):
                        continue
                    kept, dropped = drop_restating(turn.content, [statement], names=names)
                    if not dropped:
                        continue
                    if kept.strip():
                        window.turns[index] = dataclasses.replace(turn, content=kept)
                    else:
                        cut.add(turn.message_id)
                removed += _remove(window, _among(cut))
                if window.summary:
                    window.summary = drop_restating(window.summary, [statement], names=names)[0]
        return removed


def _among(message_ids: set[int]) -> Callable[[Turn], bool]:
    return lambda turn: turn.message_id in message_ids


def _remove(window: ChannelWindow, gone: Callable[[Turn], bool]) -> int:
    """Remove the turns `gone` selects and the turns replying to them; how many went."""
    dropped = {turn.message_id for turn in window.turns if gone(turn)}
    if not dropped:
        return 0
    before = len(window.turns)
    window.turns = [
        turn
        for turn in window.turns
        if turn.message_id not in dropped and turn.reply_to not in dropped
    ]
    return before - len(window.turns)
