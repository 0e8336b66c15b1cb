"""What a reply is about and what it returns: the message answered, the composer's settings,
the result (kept apart from the composer so the window keeper and gate can name them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.core.config_fields import FromSettings, setting
from memory.core.viewer import Viewer


@dataclass(frozen=True)
class IncomingMessage:
    """A message the bot answers, with ids as stored and `<@id>` mentions still in `content`."""

    guild_id: int
    channel_id: int
    message_id: int
    author_id: int
    author_name: str
    content: str
    mention_ids: tuple[int, ...] = ()
    # Whose eyes the reply is for: the channels whose words it may carry (None: not known yet;
    # the composer then searches only the reply's own channel).
    viewer: Viewer | None = None
    # The message this one answers (the bot's replies): it leaves the window with it.
    reply_to_id: int | None = None


def reader_of(message: IncomingMessage) -> Viewer:
    """Whose eyes a reply is for: the message's viewer, or (not known) its own channel only."""
    if message.viewer is not None:
        return message.viewer
    return Viewer(message.author_id, frozenset({message.channel_id}))


@dataclass
class ReplyResult:
    text: str
    prompt: str
    member_ids: list[int] = field(default_factory=list)
    memories_found: int = 0
    prompt_tokens: int = 0


@dataclass(frozen=True)
class ReplyConfig:
    bot_name: str = setting("bot_name", required=True)
    persona: str = setting("persona", required=True)
    prompt_token_budget: int = setting("reply_prompt_token_budget", required=True)
    window_token_budget: int = setting("window_token_budget", required=True)
    memory_budget_seconds: float = setting("reply_memory_budget_seconds", required=True)
    max_members: int = setting("reply_max_members", required=True)
    context_max_chars: int = setting("context_max_chars", required=True)
    # The rest default to the settings' own defaults (one default per knob).
    replies_per_minute: int = setting("replies_per_minute")
    channel_replies_per_minute: int = setting("channel_replies_per_minute")
    # A burst: past `busy_replies` replies composing at once, each waits at most
    # `busy_budget_seconds` for memory (recall, members, episode) and answers with what is ready.
    busy_replies: int = setting("reply_busy_replies")
    busy_budget_seconds: float = setting("reply_busy_budget_seconds")
    # Recall searches at once: in a burst the others wait for a slot within their budget
    # (and skip recall past it) instead of all starting, sharing the loop, and being cancelled.
    parallel_recalls: int = setting("reply_parallel_recalls")

    from_settings = FromSettings()
