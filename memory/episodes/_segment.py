"""Cutting a channel's messages into episodes: silence, a topic shift that holds, a marker.

A pure function of the ordered messages (no clock, no LLM), so live chat, backfill and an
import of the same messages give the same episodes, and a channel can be cut again from any
episode's start with the same result: every rule looks only at the episode so far and the
messages after it.

- Silence: a gap longer than `silence` between two messages.
- Marker: a message that opens with "anyway,", "new topic", "кстати", ...
- Topic shift: a message whose content words barely overlap the episode's so far is a
  candidate; it becomes a cut only when the next judgeable message is shifted too and on the
  candidate's topic (shares content words with it): one off-topic line does not flap, and
  chatter off-topic in different directions ("so much rain", "I need coffee", "watching a
  documentary") is not a new topic; a shifted line given up joins the episode, but its words
  do not join the episode's topic (or the next real topic would look on-topic). Short lines
  ("lol", "yes") are never judged.
- Pause: after a break of `pause` (45 minutes) one line whose words are mostly new cuts at
  once (short lines right after the break go with it).
- Length: an episode never holds more than `max_messages` (summaries stay small).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory.language import content_tokens

MARKER = re.compile(
    r"^\W*(?:anyway|anyways|anyhow|new topic|different topic|change of (?:topic|subject)"
    r"|changing (?:the )?(?:topic|subject)|on another note|in other news|кстати"
    r"|другая тема|новая тема)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class SegmentRules:
    """Where episodes are cut; `silence` comes from the guild (`episode_silence_minutes`)."""

    silence: timedelta = timedelta(hours=3)
    # Share of a message's content words found in the episode so far, below which it is shifted.
    shift_overlap: float = 0.2
    # Messages with fewer content words are not judged (they neither shift nor confirm).
    min_words: int = 3
    # No topic cut before the episode has this many messages (nothing to compare with yet).
    min_messages: int = 4
    # Shifted messages in a row that make a cut (the candidate included).
    confirm: int = 2
    # Content words a confirming message shares with the candidate (the shifted messages so
    # far) to be on the same new topic; with fewer, or said again word for word, the two are
    # chatter off-topic in different directions (or an echo), and the earlier is given up.
    cohere_words: int = 2
    # Unjudged messages after a candidate before it is given up (absorbed).
    patience: int = 4
    # After a pause this long a message that shifts (overlap below `pause_overlap`) cuts at
    # once: a new conversation after a break needs no second message to show it.
    pause: timedelta = timedelta(minutes=45)
    pause_overlap: float = 0.55
    max_messages: int = 300


@dataclass(frozen=True, slots=True)
class SegmentMessage:
    """What segmentation reads of a stored message."""

    message_id: int
    created_at: datetime
    author_id: int
    content: str


@dataclass(slots=True)
class Segment:
    """One episode's messages, in order."""

    messages: list[SegmentMessage] = field(default_factory=list)

    @property
    def first(self) -> SegmentMessage:
        return self.messages[0]

    @property
    def last(self) -> SegmentMessage:
        return self.messages[-1]

    @property
    def member_ids(self) -> list[int]:
        return sorted({message.author_id for message in self.messages})


def is_marker(text: str) -> bool:
    return MARKER.match(text) is not None


class _Cutter:
    """The running state: the episode so far (its word counts) and a pending candidate."""

    def __init__(self, rules: SegmentRules) -> None:
        self.rules = rules
        self.segments: list[Segment] = []
        self.current = Segment()
        self.words: Counter[str] = Counter()
        self.pending: list[tuple[SegmentMessage, set[str]]] = []
        self.shifted = 0
        self.topic: set[str] = set()  # the shifted messages' words: the candidate topic
        self.shifted_ids: set[int] = set()  # which of `pending` are shifted (not short lines)
        self.paused = False  # `pending` holds short lines after a pause

    def feed(self, message: SegmentMessage) -> None:
        tokens = content_tokens(message.content)
        if self._cuts_before(message):
            self._cut_before(None)
        elif self._after_pause(message) and self.current.messages:
            if len(tokens) >= self.rules.min_words:
                if self._overlap(tokens) < self.rules.pause_overlap:
                    self._cut_before(None)
            else:  # "hey all" after a break: the next line with words decides
                self._absorb()
                self.pending, self.paused = [(message, tokens)], True
                return
        self._judge(message, tokens)

    def _cuts_before(self, message: SegmentMessage) -> bool:
        """Silence, a marker, or a full episode: a cut before `message` whatever it says."""
        previous = self._last()
        if previous is None:
            return False
        if message.created_at - previous.created_at > self.rules.silence:
            return True
        if is_marker(message.content):
            return True
        return len(self.current.messages) + len(self.pending) >= self.rules.max_messages

    def _after_pause(self, message: SegmentMessage) -> bool:
        previous = self._last()
        return previous is not None and message.created_at - previous.created_at >= self.rules.pause

    def _overlap(self, tokens: set[str]) -> float:
        return sum(1 for token in tokens if token in self.words) / len(tokens)

    def _judge(self, message: SegmentMessage, tokens: set[str]) -> None:
        rules = self.rules
        if self.paused:
            self._after_paused_line(message, tokens)
            return
        judged = len(tokens) >= rules.min_words and len(self.current.messages) >= (
            rules.min_messages
        )
        if not judged:
            if self.pending:
                self.pending.append((message, tokens))
                if len(self.pending) > rules.patience:
                    self._absorb()
            else:
                self._add(message, tokens)
            return
        if self._overlap(tokens) >= rules.shift_overlap:
            self._absorb()
            self._add(message, tokens)
            return
        if self.shifted and not self._coheres(tokens):
            self._absorb()  # off-topic in another direction: a candidate of its own
        self.pending.append((message, tokens))
        self.shifted += 1
        self.topic |= tokens
        self.shifted_ids.add(message.message_id)
        if self.shifted >= rules.confirm:
            self._cut_before(self.pending[0][0])

    def _coheres(self, tokens: set[str]) -> bool:
        """Does a shifted message continue the candidate's topic (not merely leave the
        episode's)?"""
        if any(tokens == said for _, said in self.pending):
            return False  # the same words again: one statement twice, not a conversation
        return len(tokens & self.topic) >= self.rules.cohere_words

    def _after_paused_line(self, message: SegmentMessage, tokens: set[str]) -> None:
        """Short lines after a pause wait for one with words: new words cut before them."""
        if len(tokens) < self.rules.min_words:
            self.pending.append((message, tokens))
            if len(self.pending) > self.rules.patience:
                self._absorb()
            return
        if self._overlap(tokens) < self.rules.pause_overlap:
            self.pending.append((message, tokens))
            self._cut_before(self.pending[0][0])
            return
        self._absorb()
        self._add(message, tokens)

    def _add(self, message: SegmentMessage, tokens: Iterable[str]) -> None:
        self.current.messages.append(message)
        self.words.update(tokens)

    def _absorb(self) -> None:
        """The candidate did not hold: its messages belong to the episode after all, but the
        words of its shifted ones do not become the episode's topic (chatter that never
        became a topic must not make the next real one look on-topic)."""
        pending, self.pending, self.shifted, self.paused = self.pending, [], 0, False
        shifted, self.shifted_ids, self.topic = self.shifted_ids, set(), set()
        for message, tokens in pending:
            self._add(message, () if message.message_id in shifted else tokens)

    def _cut_before(self, candidate: SegmentMessage | None) -> None:
        """Close the episode; a confirmed candidate and what followed it open the next one."""
        carried = self.pending if candidate is not None else []
        if candidate is None:
            self._absorb()
        self.pending, self.shifted, self.paused, self.topic = [], 0, False, set()
        self.shifted_ids = set()
        if self.current.messages:
            self.segments.append(self.current)
        self.current, self.words = Segment(), Counter()
        for message, tokens in carried:
            self._add(message, tokens)

    def _last(self) -> SegmentMessage | None:
        if self.pending:
            return self.pending[-1][0]
        return self.current.last if self.current.messages else None

    def finish(self) -> list[Segment]:
        self._absorb()
        if self.current.messages:
            self.segments.append(self.current)
        return self.segments


def segment(messages: Sequence[SegmentMessage], rules: SegmentRules) -> list[Segment]:
    """The episodes of `messages` (in time order, from an episode start): every segment but
    the last is closed; the last is still open (more messages may join it)."""
    cutter = _Cutter(rules)
    for message in messages:
        cutter.feed(message)
    return cutter.finish()
