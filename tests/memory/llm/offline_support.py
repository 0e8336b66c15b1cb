"""The realistic chat the offline provider's tests run on (test_offline_*.py): three members
and a day of their messages, as the `MemoryLLM` tasks get them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from memory.llm.tasks import PromptMember, PromptMessage

ALICE = PromptMember(user_id=1, name="alice", aliases=["Ali"])
BOB = PromptMember(user_id=2, name="bob")
CAROL = PromptMember(user_id=3, name="carol")
DAY = date(2024, 5, 1)
START = datetime(2024, 5, 1, 8, tzinfo=UTC)

CHAT: list[tuple[int, str, str, int | None]] = [
    # (author id, author name, content, reply-to message index)
    (1, "alice", "morning all", None),
    (2, "bob", "morning!", None),
    (1, "alice", "I finally got the job at the bakery! starting monday, so nervous", None),
    (2, "bob", "congrats!! your sourdough is the best in town", 2),
    (3, "carol", "lol", None),
    (1, "alice", "[image: croissant.png]", None),
    (2, "bob", "my cat knocked the plant over again, third time this week", None),
    (3, "carol", "did anyone watch the match yesterday?", None),
    (2, "bob", "Ali is moving to Berlin next month with her sister", None),
    (1, "alice", "haha yeah", None),
    (3, "carol", "ok", None),
]


def chat_messages(chat: list[tuple[int, str, str, int | None]] = CHAT) -> list[PromptMessage]:
    """The chat as prompt messages, five minutes apart from START."""
    return [
        PromptMessage(
            message_id=100 + index,
            reply_to_id=100 + reply if reply is not None else None,
            timestamp=START + timedelta(minutes=5 * index),
            author_id=author_id,
            author_name=author,
            content=content,
        )
        for index, (author_id, author, content, reply) in enumerate(chat)
    ]
