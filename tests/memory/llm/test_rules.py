"""The rule-based intent pre-filter on the ways members actually address the bot."""

from __future__ import annotations

import pytest

from memory.llm.rules import looks_like_command, parse_intent, strip_address


@pytest.mark.parametrize(
    ("text", "replied_to", "expected"),
    [
        ("Bot, remember that alice is Sergey", None, ("remember", "alice", "alice is Sergey.")),
        ("<@999> remember that I like pizza", None, ("remember", "me", "carol likes pizza.")),
        (
            "@Bot remember my birthday is May 3",
            None,
            ("remember", "me", "carol's birthday is May 3."),
        ),
        (
            "bot please remember that Mary Jane works at the library",
            None,
            ("remember", "Mary Jane", "Mary Jane works at the library."),
        ),
        (
            "remember that alice's cat is called Tom",
            None,
            ("remember", "alice", "alice's cat is called Tom."),
        ),
        (
            "Bot, remember that <@42> plays bass",
            None,
            ("remember", "<@42>", "<@42> plays bass."),
        ),
        (
            "Bot remember this about bob",
            "I'm moving to Berlin next month",
            ("remember_this", "bob", "I'm moving to Berlin next month"),
        ),
        ("remember this", "I got a puppy!", ("remember_this", None, "I got a puppy!")),
        (
            "hey Bot: forget that alice lives in Paris",
            None,
            ("forget", "alice", "alice lives in Paris."),
        ),
        ("forget that I have a cat", None, ("forget", "me", "carol has a cat.")),
        ("what do you know about alice?", None, ("whois", "alice", None)),
        ("Bot who is <@123>?", None, ("whois", "<@123>", None)),
        ("who's bob", None, ("whois", "bob", None)),
        ("who am I?", None, ("whois", "me", None)),
        ("Bot, what do you remember about me", None, ("whois", "me", None)),
        ("tell me about Mary Jane", None, ("whois", "Mary Jane", None)),
    ],
)
def test_commands_are_recognised(
    text: str, replied_to: str | None, expected: tuple[str, str | None, str | None]
) -> None:
    intent = parse_intent(text, bot_name="Bot", author_name="carol", replied_to=replied_to)
    assert (intent.kind, intent.target, intent.statement) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Bot, how are you?",
        "who is going to the party tonight?",
        "who are you?",
        "I will never forget that concert",
        "remember this is just a test",
        "Bot",
        "",
    ],
)
def test_chat_is_not_a_command(text: str) -> None:
    assert parse_intent(text, bot_name="Bot", author_name="carol").kind == "none"


def test_address_is_stripped_in_every_form() -> None:
    for text in ("<@1> hi", "<@!1> hi", "@Bot hi", "Bot, hi", "hey bot: hi", "bot hi"):
        assert strip_address(text, "Bot") == "hi", text


def test_cheap_check_tells_when_a_model_might_help() -> None:
    assert looks_like_command("Bot do you still remember my dog's name?", bot_name="Bot")
    assert looks_like_command("pls forget what I said about work", bot_name="Bot")
    assert not looks_like_command("Bot, nice weather today", bot_name="Bot")
