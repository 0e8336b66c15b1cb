"""What the economy bench counts against: the naive per-request cost and the raw chat's tokens."""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench.providers import fast_tokens
from bench.synthetic import SyntheticGuild
from memory.core.models import ChatMessage
from memory.llm import message_elements
from memory.members import render_messages
from prompts.loader import template

# The naive alternative reads each member's raw week per request.
WINDOW = timedelta(days=7)


@dataclass
class NaiveCost:
    """One call per member per request over the member's raw week: calls and tokens."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    _overhead: int = field(default_factory=lambda: fast_tokens(template("merge")))
    # user id -> (times, cumulative tokens) of the messages that involve them
    _times: dict[int, list[datetime]] = field(default_factory=lambda: defaultdict(list))
    _cumulative: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))

    def add_messages(self, messages: list[ChatMessage], tokens: list[int]) -> None:
        for message, count in zip(messages, tokens, strict=True):
            for user_id in {message.author_id, *message.mention_ids}:
                series = self._cumulative[user_id]
                self._times[user_id].append(message.created_at)
                series.append((series[-1] if series else 0) + count)

    def request(self, user_id: int, at: datetime, facts: str, answer: str | None) -> None:
        times, cumulative = self._times[user_id], self._cumulative[user_id]
        upto = bisect.bisect_right(times, at)
        start = bisect.bisect_left(times, at - WINDOW)
        week = (cumulative[upto - 1] if upto else 0) - (cumulative[start - 1] if start else 0)
        self.calls += 1
        self.input_tokens += self._overhead + fast_tokens(facts) + week
        self.output_tokens += fast_tokens(answer or "")


def _message_tokens(guild: SyntheticGuild, messages: list[ChatMessage]) -> list[int]:
    """Tokens of each message as a prompt shows it (XML element, names resolved)."""
    members = {member.user_id: member for member in guild.members()}
    rendered = render_messages(messages, members)
    return [fast_tokens(str(message_elements([message]))) for message in rendered]


def _raw_tokens(guild: SyntheticGuild, messages: list[ChatMessage]) -> int:
    """The day's chat written once as `Name: text` (mentions as names): what "reading each
    message once" costs, the yardstick of the hierarchy's token ratio."""
    members = {member.user_id: member for member in guild.members()}
    rendered = render_messages(messages, members)
    return fast_tokens("\n".join(f"{m.author_name}: {m.content}" for m in rendered))


def _message_chars(guild: SyntheticGuild, messages: list[ChatMessage]) -> tuple[float, float]:
    """Mean characters per message in a daily prompt (XML element) and of its content alone."""
    members = {member.user_id: member for member in guild.members()}
    rendered = render_messages(messages, members)
    xml = sum(len(str(message_elements([message]))) + 1 for message in rendered)
    content = sum(len(message.content) for message in rendered)
    return xml / max(1, len(rendered)), content / max(1, len(rendered))
