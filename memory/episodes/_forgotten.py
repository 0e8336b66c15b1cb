"""Forgetting reaches episodes: what a member asked to forget leaves every episode text served.

Episode summaries are extractive (they quote the chat) and may predate a forget, so titles,
summaries and open loops are filtered again whenever episodes are read for a member (replies,
catch-up, digests, listings, search), as day summaries are: a sentence that restates a
forgotten statement and names (or is said by) the member it was about goes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memory.core.models import Member
from memory.core.text import drop_sentences, mentions_name
from memory.episodes._views import Episode
from memory.language import restates_any

Forgotten = list[tuple[int, tuple[str, ...], tuple[str, ...]]]  # (member, names, statements)


def forgotten_of(rows: Sequence[tuple[Member, Sequence[str]]]) -> Forgotten:
    """`db.summaries.forgotten_in_guild`'s rows (read now, or held) as the scrub takes them."""
    return [(member.user_id, tuple(member.names), tuple(statements)) for member, statements in rows]


def scrub(text: str, forgotten: Forgotten, speakers: Sequence[int] = ()) -> str:
    """`text` without the sentences restating a forgotten statement about a member who spoke
    in it (`speakers`: an episode quotes its members without naming them) or whom it names."""
    if not text or not forgotten:
        return text

    def restated(sentence: str) -> bool:
        return any(
            (user_id in speakers or any(mentions_name(sentence, name) for name in names))
            and restates_any(sentence, statements, names=names)
            for user_id, names, statements in forgotten
        )

    return drop_sentences(text, restated)[0]


def scrub_episodes(episodes: Sequence[Episode], forgotten: Forgotten) -> list[Episode]:
    if not forgotten:
        return list(episodes)
    return [
        replace(
            episode,
            title=scrub(episode.title, forgotten, episode.member_ids),
            summary=scrub(episode.summary, forgotten, episode.member_ids),
            open_loops=tuple(
                loop
                for loop in (
                    scrub(loop, forgotten, episode.member_ids) for loop in episode.open_loops
                )
                if loop
            ),
        )
        for episode in episodes
    ]


def _loops(episode: Episode, forgotten: Forgotten) -> tuple[str, ...]:
    scrubbed = (scrub(loop, forgotten, episode.member_ids) for loop in episode.open_loops)
    return tuple(loop for loop in scrubbed if loop)
