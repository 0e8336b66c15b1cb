"""The embedding feed: what the writer stored is embedded by id; a burst past NOTED_CAP has its
guild looked through instead, step after step, each going on from where the last stopped,
until nothing is left."""

from __future__ import annotations

from memory.recall._feed import NOTED_CAP, EmbeddingFeed
from tests.support import chat_message


class _Index:
    """Records what the feed asked for (the index's two ways of embedding)."""

    def __init__(self, rounds_with_more: int = 0) -> None:
        self.by_id: list[tuple[int, list[int]]] = []
        self.looked_through: list[tuple[int, int | None]] = []  # (guild, from message)
        self.more = rounds_with_more

    async def index_messages(self, guild_id: int, message_ids: list[int]) -> int:
        self.by_id.append((guild_id, message_ids))
        return len(message_ids)

    async def look_through(self, guild_id: int, before: int | None) -> int | None:
        """A step: stopped with more to do at message 1000 - 100 x steps so far."""
        self.looked_through.append((guild_id, before))
        self.more -= 1
        return 1000 - 100 * len(self.looked_through) if self.more >= 0 else None


async def test_stored_messages_are_embedded_by_their_ids_guild_by_guild() -> None:
    index = _Index()
    feed = EmbeddingFeed(index.index_messages, index.look_through)
    feed.note([chat_message(n, guild_id=1 + n % 2) for n in range(1, 6)])
    feed.note([chat_message(3, guild_id=2)])  # an edit of one noted already: once
    await feed.settled()
    assert sorted(index.by_id) == [(1, [4, 2]), (2, [5, 3, 1])]
    assert index.looked_through == []


async def test_a_burst_past_the_cap_has_its_guild_looked_through_until_done() -> None:
    index = _Index(rounds_with_more=2)
    feed = EmbeddingFeed(index.index_messages, index.look_through)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    await feed.settled()
    assert index.by_id == []
    # From the newest, then on from where each step stopped: twice "more to do", then done.
    assert index.looked_through == [(7, None), (7, 900), (7, 800)]


async def test_a_line_said_during_a_look_through_is_embedded_by_its_id() -> None:
    """The look through goes on towards the oldest: what is said meanwhile is newer than
    where it is, and only its id finds it."""
    index = _Index(rounds_with_more=1)
    feed = EmbeddingFeed(index.index_messages, index.look_through)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    feed.note([chat_message(NOTED_CAP + 5, guild_id=7)])
    await feed.settled()
    assert index.by_id == [(7, [NOTED_CAP + 5])]
    assert index.looked_through == [(7, None), (7, 900)]


async def test_another_burst_during_a_look_through_starts_it_again_from_the_newest() -> None:
    index = _Index(rounds_with_more=3)

    async def bursting(guild_id: int, before: int | None) -> int | None:
        if len(index.looked_through) == 1:  # a second burst while the second step runs
            feed.note([chat_message(10_000 + n, guild_id=7) for n in range(NOTED_CAP + 1)])
        return await index.look_through(guild_id, before)

    feed = EmbeddingFeed(index.index_messages, bursting)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    await feed.settled()
    assert index.looked_through == [(7, None), (7, 900), (7, None), (7, 700)]


async def test_after_closing_nothing_is_noted() -> None:
    index = _Index()
    feed = EmbeddingFeed(index.index_messages, index.look_through)
    await feed.aclose()
    feed.note([chat_message(1)])
    await feed.settled()
    assert index.by_id == [] and index.looked_through == []


async def test_a_guild_looked_through_does_not_hold_another_guilds_lines_back() -> None:
    order: list[str] = []

    async def by_id(guild_id: int, message_ids: list[int]) -> int:
        order.append(f"lines of {guild_id}")
        return len(message_ids)

    rounds = iter([900, 800, 700, None])

    async def look_through(guild_id: int, before: int | None) -> int | None:
        order.append(f"look through {guild_id}")
        if len(order) == 1:  # the live line arrives while the catch-up runs
            feed.note([chat_message(1, guild_id=8)])
        return next(rounds)

    feed = EmbeddingFeed(by_id, look_through)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    await feed.settled()
    assert order[:3] == ["look through 7", "lines of 8", "look through 7"]
    assert order.count("look through 7") == 4
