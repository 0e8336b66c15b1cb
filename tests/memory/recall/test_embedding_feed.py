"""The embedding feed: what the writer stored is embedded by id; a burst past NOTED_CAP has its
guild looked through instead, batch after batch until nothing is left."""

from __future__ import annotations

from memory.recall._feed import NOTED_CAP, EmbeddingFeed
from tests.support import chat_message


class _Index:
    """Records what the feed asked for (the index's two ways of embedding)."""

    def __init__(self, rounds_with_more: int = 0) -> None:
        self.by_id: list[tuple[int, list[int]]] = []
        self.looked_through: list[int] = []
        self.more = rounds_with_more

    async def index_messages(self, guild_id: int, message_ids: list[int]) -> int:
        self.by_id.append((guild_id, message_ids))
        return len(message_ids)

    async def index_guild(self, guild_id: int) -> bool:
        self.looked_through.append(guild_id)
        self.more -= 1
        return self.more >= 0


async def test_stored_messages_are_embedded_by_their_ids_guild_by_guild() -> None:
    index = _Index()
    feed = EmbeddingFeed(index.index_messages, index.index_guild)
    feed.note([chat_message(n, guild_id=1 + n % 2) for n in range(1, 6)])
    feed.note([chat_message(3, guild_id=2)])  # an edit of one noted already: once
    await feed.settled()
    assert sorted(index.by_id) == [(1, [4, 2]), (2, [5, 3, 1])]
    assert index.looked_through == []


async def test_a_burst_past_the_cap_has_its_guild_looked_through_until_done() -> None:
    index = _Index(rounds_with_more=2)
    feed = EmbeddingFeed(index.index_messages, index.index_guild)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    feed.note([chat_message(NOTED_CAP + 5, guild_id=7)])  # the look through finds it too
    await feed.settled()
    assert index.by_id == []
    assert index.looked_through == [7, 7, 7]  # twice "more to do", then done


async def test_after_closing_nothing_is_noted() -> None:
    index = _Index()
    feed = EmbeddingFeed(index.index_messages, index.index_guild)
    await feed.aclose()
    feed.note([chat_message(1)])
    await feed.settled()
    assert index.by_id == [] and index.looked_through == []


async def test_a_guild_looked_through_does_not_hold_another_guilds_lines_back() -> None:
    order: list[str] = []

    async def by_id(guild_id: int, message_ids: list[int]) -> int:
        order.append(f"lines of {guild_id}")
        return len(message_ids)

    rounds = iter([True, True, True, False])

    async def look_through(guild_id: int) -> bool:
        order.append(f"look through {guild_id}")
        if len(order) == 1:  # the live line arrives while the catch-up runs
            feed.note([chat_message(1, guild_id=8)])
        return next(rounds)

    feed = EmbeddingFeed(by_id, look_through)
    feed.note([chat_message(n, guild_id=7) for n in range(NOTED_CAP + 1)])
    await feed.settled()
    assert order[:3] == ["look through 7", "lines of 8", "look through 7"]
    assert order.count("look through 7") == 4
