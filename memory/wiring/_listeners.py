"""Who hears what: every subscription to the event bus, in one table.

A service publishes what happened (`memory.core.events`) and never knows who cares; this is
the only place that decides. Handlers of one event run in the order written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.core.events import (
    EventBus,
    FactLearned,
    GuildChanged,
    MemberBack,
    MemberChanged,
    MemberGone,
    MemberPurged,
    MembersSeen,
    MessagesChanged,
    MessagesStored,
    StatementForgotten,
)
from memory.episodes import EpisodeService
from memory.members import HeldMembers
from memory.recall import EmbeddingIndex
from memory.wiring._caches import CrossProcessCaches


@dataclass(frozen=True, slots=True)
class EmbedStored:
    """The local embedder embeds what the writer stored, new and edited (its `note` takes the
    messages)."""

    embeddings: EmbeddingIndex

    def __call__(self, stored: MessagesStored) -> None:
        self.embeddings.note([*stored.messages, *stored.edited])


def listen(
    bus: EventBus,
    caches: CrossProcessCaches,
    held: HeldMembers,
    episodes: EpisodeService,
    embeddings: EmbeddingIndex,
) -> None:
    """Subscribe every handler of the house; called once, before the front end starts."""
    # What the writer stored: names follow renames, days go stale, channels are cut again.
    bus.subscribe(MembersSeen, held.seen)
    bus.subscribe(MessagesChanged, caches.messages)  # edits/deletes make days stale
    bus.subscribe(MessagesStored, episodes.note)
    bus.subscribe(MessagesStored, EmbedStored(embeddings))
    # What members and admins changed: every process's caches follow.
    bus.subscribe(MemberChanged, caches.member)
    bus.subscribe(StatementForgotten, caches.forgot_about)
    bus.subscribe(FactLearned, caches.learned)  # a fact learned from chat shows at once
    bus.subscribe(GuildChanged, caches.guild_changed)  # a new timezone moves day boundaries
    # Privacy: a purged member's episodes go, their words leave every window.
    bus.subscribe(MemberPurged, episodes.forget_member)
    bus.subscribe(MemberGone, caches.member_gone)
    bus.subscribe(MemberBack, caches.member_back)
