"""The cheap pre-filter: which messages are memory commands, parsed without any LLM call."""

from __future__ import annotations

import pytest

from memory.language import (
    ParsedCommand,
    addressed_text,
    is_memory_command,
    prefilter,
    subject_candidates,
    third_person,
)
from memory.llm import third_person as facts_third_person


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("remember that alice is Sergey", ParsedCommand("remember", None, "alice is Sergey")),
        ("Remember: alice likes cats.", ParsedCommand("remember", None, "alice likes cats")),
        (
            "please remember that I like pizza, thanks!",
            ParsedCommand("remember", None, "I like pizza"),
        ),
        (
            "remember about bob that he plays bass",
            ParsedCommand("remember", "bob", "he plays bass"),
        ),
        ("forget that alice likes pizza", ParsedCommand("forget", None, "alice likes pizza")),
        (
            "can you forget about <@12>: likes pizza",
            ParsedCommand("forget", "<@12>", "likes pizza"),
        ),
        ("what do you know about <@123>?", ParsedCommand("whois", "<@123>")),
        ("What do you know about bob", ParsedCommand("whois", "bob")),
        ("who is Big Bob?", ParsedCommand("whois", "Big Bob")),
        ("tell me about me", ParsedCommand("whois", "me")),
        ("what do you remember about myself", ParsedCommand("whois", "myself")),
        ("who am I?", ParsedCommand("whois", "me")),
        ("what do you know about alice's", ParsedCommand("whois", "alice")),
    ],
)
def test_common_phrasings_parse_without_the_router(text: str, expected: ParsedCommand) -> None:
    assert prefilter(text).parsed == expected


def test_remember_this_needs_a_reply() -> None:
    assert prefilter("remember this about bob", has_reply=True).parsed == ParsedCommand(
        "remember_this", "bob"
    )
    assert prefilter("remember this", has_reply=True).parsed == ParsedCommand("remember_this")
    assert prefilter("forget this", has_reply=True).parsed == ParsedCommand("forget_this")
    # without a reply there is nothing to remember: the router may still make sense of it
    assert prefilter("remember that").ask_router


@pytest.mark.parametrize(
    "text",
    [
        "do you remember the game yesterday?",
        "don't forget to water the plants",
        "keep in mind that alice is vegan",
        "запомни, что Серёжа любит чай",
    ],
)
def test_unusual_phrasings_go_to_the_router(text: str) -> None:
    decision = prefilter(text)
    assert decision.parsed is None and decision.ask_router


@pytest.mark.parametrize("text", ["how are you today?", "lol", "", "   ", "what's the weather"])
def test_chat_is_ignored(text: str) -> None:
    assert prefilter(text).ignore


def test_addressing() -> None:
    assert addressed_text("Bot remember that x", bot_name="Bot") == "remember that x"
    assert addressed_text("bot, remember that x", bot_name="Bot") == "remember that x"
    assert addressed_text("BOT: hi", bot_name="Bot") == "hi"
    assert addressed_text("Botany is fun", bot_name="Bot") is None
    assert (
        addressed_text("hey <@77> who is bob", bot_name="Bot", bot_user_id=77) == "hey who is bob"
    )
    assert addressed_text("<@!77>, who is bob", bot_name="Bot", bot_user_id=77) == "who is bob"
    assert addressed_text("<@78> who is bob", bot_name="Bot", bot_user_id=77) is None
    assert addressed_text("who is bob", bot_name="Bot", reply_to_bot=True) == "who is bob"


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("I like pizza", "alice likes pizza"),
        ("I'm a doctor", "alice is a doctor"),
        ("I also watch anime", "alice also watches anime"),
        ("my cat is called Tom", "alice's cat is called Tom"),
        ("I don't eat meat", "alice doesn't eat meat"),
        ("I have two dogs and I can swim", "alice has two dogs and alice can swim"),
        ("bob is my brother", "bob is alice's brother"),
        ("bob likes tea", "bob likes tea"),
        ("I just adopted a cat", "alice just adopted a cat"),
        ("I went to Paris", "alice went to Paris"),
        ("I need a break", "alice needs a break"),
        # chat case and statements that begin with their verb or a pronoun (the facts path)
        ("i'm a nurse", "alice is a nurse"),
        ("i love hiking with my dog", "alice loves hiking with alice's dog"),
        ("likes pizza", "alice likes pizza"),
        ("her cat is Tom", "alice's cat is Tom"),
        ("they are a teacher", "alice is a teacher"),
        ("Alice lives in Paris", "Alice lives in Paris"),
        # an adverb before the verb is not the verb (LoCoMo-dev: "slowlies formed")
        ("I slowly formed a band", "alice slowly formed a band"),
        ("I even got a medal", "alice even got a medal"),
        ("I truly believe it", "alice truly believes it"),
        ("I now live in Oslo", "alice now lives in Oslo"),  # was "alice nows live"
        ("I never eat meat", "alice never eats meat"),
        ("I apply for jobs", "alice applies for jobs"),
        ("I fly kites", "alice flies kites"),
    ],
)
def test_first_person_becomes_third_person(statement: str, expected: str) -> None:
    assert third_person(statement, "alice") == expected


def test_one_third_person_for_commands_and_facts() -> None:
    """The command parser and the facts checks rewrite statements with the same function."""
    assert facts_third_person is third_person
    assert third_person("Ally has a cat", "alice", ["Ally"]) == "Ally has a cat"
    # said by bob about someone else: only his own first-person words become his name
    assert third_person("she got the job", "bob", first_person_only=True) == "she got the job"
    assert third_person("I hired her", "bob", first_person_only=True) == "bob hired her"


def test_subject_candidates_longest_first() -> None:
    assert subject_candidates("Big Bob's cat is cute") == ["Big Bob's cat", "Big Bob", "Big"]
    assert subject_candidates("<@12> likes pizza") == ["<@12>"]
    assert subject_candidates("<@12>'s cat is cute") == ["<@12>"]


@pytest.mark.parametrize("text", ["tell me a long story", "tell me a joke about cats"])
def test_tell_me_without_about_is_chat_not_whois(text: str) -> None:
    assert prefilter(text).parsed is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bot, remember that alice likes tea", True),
        ("<@123456789012345678> forget that I have a cat", True),
        ("bot what do you know about bob?", True),
        ("Bot, how was your day?", False),
        ("I will remember that trip forever", False),
        ("alice remember that we meet at 5", False),
    ],
)
def test_memory_commands_are_recognised_in_stored_messages(text: str, expected: bool) -> None:
    assert is_memory_command(text, bot_name="Bot") is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bot, where did alice move from?", True),
        ("bot when is the pottery class?  ", True),
        ("Bot, I got a kitten, any names?", False),  # says something of who asks
        ("Bot, where should we eat tonight?", False),
        ("Bot, где мой зонт?", False),  # мой: the first person in Russian
        ("Bot, alice moved to Lisbon.", False),  # not a question
        ("where did alice move from?", False),  # not to the bot
        ("<@123> where did alice move from?", False),  # a mention of someone not known as a bot
        ("<@777> where did alice move from?", True),  # a mention of a bot the directory knows
        ("hey <@!777>, when is the pottery class?", True),
        ("<@777> I start a new job on Monday, any tips?", False),
        ("Bottle of wine, anyone?", False),  # not the bot's name
        ("Bot, which US cities has alice visited?", True),  # US: the country, not "us"
        ("Bot, can you remind us when the trip is?", False),  # us: the askers
        ("Bot, was May a good month for alice? Answer yes or no.", True),
        ("Bot, alice moved to Lisbon. Any idea why?", True),  # ends asking
        ("Bot, alice moved to Lisbon. She loves it.", False),  # news
    ],
)
def test_questions_to_the_bot_about_others_are_told_from_chat(text: str, expected: bool) -> None:
    from memory.language import asks_the_bot_only

    assert asks_the_bot_only(text, bot_name="Bot", bot_ids=frozenset({777})) is expected


def test_forget_commands_are_told_from_other_messages() -> None:
    from memory.language import is_forget_command

    assert is_forget_command("Bot forget that I am a nurse", bot_name="Bot")
    assert is_forget_command("<@123> forget that alice is Sergey", bot_name="Bot")
    assert not is_forget_command("Bot remember that I am a nurse", bot_name="Bot")
    assert not is_forget_command("I always forget my keys", bot_name="Bot")
