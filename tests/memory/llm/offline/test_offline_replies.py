"""The offline provider answers through the same `MemoryLLM` tasks real models get: who-is,
routing by the rule-based pre-filter, the folded chat window, and replies from memory."""

from __future__ import annotations

import pytest

from memory.llm import MemoryLLM
from memory.llm.offline import OfflineProvider
from tests.memory.llm.offline_support import ALICE, chat_messages


@pytest.fixture
def llm() -> MemoryLLM:
    return MemoryLLM(OfflineProvider())


async def test_whois_answers_plainly_or_admits_not_knowing(llm: MemoryLLM) -> None:
    empty = await llm.whois(
        guild_id=9,
        member=ALICE,
        memory="",
        question="who is alice?",
        asker_name="bob",
        bot_name="Bot",
    )
    assert empty == "I don't know anything about alice yet."
    known = await llm.whois(
        guild_id=9,
        member=ALICE,
        memory="alice lives in Berlin. alice plays the cello.",
        question="who is alice?",
        asker_name="bob",
        bot_name="Bot",
    )
    assert known == "Here's what I know about alice: alice lives in Berlin. alice plays the cello."


async def test_route_uses_the_rules(llm: MemoryLLM) -> None:
    intent = await llm.route(
        text="Bot, remember that I moved to Lisbon", bot_name="Bot", author_name="carol"
    )
    # The same parse as the pre-filter: the commands layer resolves "I" to the author.
    assert (intent.kind, intent.target, intent.statement) == ("remember", None, "I moved to Lisbon")
    chat = await llm.route(text="Bot, how was your weekend?", bot_name="Bot", author_name="carol")
    assert chat.kind == "none"


async def test_window_fold_keeps_who_said_what_within_the_cap(llm: MemoryLLM) -> None:
    turns = chat_messages()
    text = await llm.fold_window(
        summary="carol asked about the match.", turns=turns, max_chars=200, guild_id=9
    )
    assert len(text) <= 200
    assert 'bob: "Ali is moving to Berlin next month with her sister".' in text  # the newest


async def test_reply_quotes_memory_of_the_member_asked_about(llm: MemoryLLM) -> None:
    text = await llm.reply(
        prompt="<rendered prompt>",
        inputs={
            "message": "Bot, what's new with alice?",
            "author_name": "bob",
            "memories": [
                {"user_id": 1, "name": "alice", "context": "alice lives in Berlin."},
                {"user_id": 2, "name": "bob", "context": "bob has a cat."},
            ],
        },
        guild_id=9,
    )
    assert "offline mode" in text
    assert "About alice: alice lives in Berlin." in text
    assert "cat" not in text  # bob did not ask about himself


async def test_reply_without_relevant_memory_is_honest(llm: MemoryLLM) -> None:
    text = await llm.reply(
        prompt="p", inputs={"message": "Bot, tell me a joke", "author_name": "bob"}, guild_id=9
    )
    assert text.startswith("Hi bob!") and "without a language model" in text


async def test_reply_about_the_author(llm: MemoryLLM) -> None:
    text = await llm.reply(
        prompt="p",
        inputs={
            "message": "what do you know about me?",
            "author_name": "bob",
            "memories": [{"user_id": 2, "name": "bob", "context": "bob has a cat named Mo."}],
        },
        guild_id=9,
    )
    assert "About you: bob has a cat named Mo." in text


@pytest.mark.parametrize(
    ("text", "replied_to", "expected"),
    [
        ("remember that alice is Sergey", None, ("remember", None, "alice is Sergey")),
        ("remember this about bob", "I moved to Berlin", ("remember_this", "bob", None)),
        ("forget this", "I have a cat", ("forget", None, None)),
        ("what do you know about alice?", None, ("whois", "alice", None)),
        ("who am I?", None, ("whois", "me", None)),
        ("tell me a joke about remembering things", None, ("none", None, None)),
    ],
)
async def test_offline_route_is_the_rule_based_prefilter(
    text: str, replied_to: str | None, expected: tuple[str, str | None, str | None]
) -> None:
    llm = MemoryLLM(OfflineProvider())
    intent = await llm.route(text=text, bot_name="Bot", author_name="carol", replied_to=replied_to)
    assert (intent.kind, intent.target, intent.statement) == expected
