"""The offline provider on realistic chat, through the same `MemoryLLM` tasks real models get."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from memory.llm import MemoryLLM
from memory.llm.offline import _provider as offline_module
from memory.llm.offline._provider import OfflineProvider
from memory.llm.tasks._schemas import ForgetOutput, PromptMember, PromptMessage

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


def _messages(chat: list[tuple[int, str, str, int | None]] = CHAT) -> list[PromptMessage]:
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


@pytest.fixture
def llm() -> MemoryLLM:
    return MemoryLLM(OfflineProvider())


async def _day(llm: MemoryLLM, **kwargs: object) -> dict[int, str]:
    arguments: dict[str, object] = {
        "guild_id": 9,
        "day": DAY,
        "timezone": "UTC",
        "messages": _messages(),
        "members": [ALICE, BOB, CAROL],
        "max_chars": 300,
    }
    arguments.update(kwargs)
    return await llm.summarize_day(**arguments)  # type: ignore[arg-type]


# --- daily summaries ----------------------------------------------------------------------


async def test_daily_summary_quotes_the_informative_messages(llm: MemoryLLM) -> None:
    summaries = await _day(llm)
    alice = summaries[1]
    assert alice.startswith("alice said:")
    assert "got the job at the bakery" in alice
    assert "morning all" not in alice and "haha" not in alice and "croissant" not in alice
    # What others revealed about her: a reply to her message and a mention by alias.
    assert 'bob replied to alice: "congrats!! your sourdough is the best in town"' in alice
    assert "moving to Berlin" in alice
    assert len(alice) <= 300


async def test_member_with_nothing_informative_gets_an_empty_summary(llm: MemoryLLM) -> None:
    summaries = await _day(llm)
    assert summaries[3] == ""  # carol: "lol", "ok" and a question about a match
    assert "cat knocked the plant over" in summaries[2]


async def test_daily_summary_respects_a_small_cap(llm: MemoryLLM) -> None:
    summaries = await _day(llm, max_chars=80)
    assert all(len(text) <= 80 for text in summaries.values())
    assert summaries[1].startswith("alice said:")


async def test_daily_summary_is_deterministic(llm: MemoryLLM) -> None:
    assert await _day(llm) == await _day(llm)


async def test_forgotten_statements_stay_out_of_daily_summaries(llm: MemoryLLM) -> None:
    summaries = await _day(llm, forgotten={1: ["alice is moving to Berlin"]})
    assert "Berlin" not in summaries[1]
    assert "bakery" in summaries[1]


async def test_a_busy_day_is_summarised_without_stalling_the_event_loop(
    llm: MemoryLLM, monkeypatch
) -> None:
    chat = [
        (1 + i % 20, f"user{i % 20}", f"message {i}: I went to the gym and my knee hurts", None)
        for i in range(3000)
    ]
    members = [PromptMember(user_id=1 + i, name=f"user{i}") for i in range(20)]
    ticks = 0
    during: list[int] = []
    summarise = offline_module.HANDLERS["daily_summary"]

    def watched(inputs: Any) -> Any:  # runs wherever the provider runs it
        before = ticks
        answer = summarise(inputs)
        during.append(ticks - before)
        return answer

    monkeypatch.setitem(offline_module.HANDLERS, "daily_summary", watched)

    async def ticker() -> None:  # stands for the gateway heartbeat, ingestion, reply budgets
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    beating = asyncio.ensure_future(ticker())
    try:
        summaries = await _day(llm, messages=_messages(chat), members=members)
    finally:
        beating.cancel()
    assert all(0 < len(text) <= 300 for text in summaries.values())
    # The loop kept its turns while the day was being summarised: on the loop's own thread the
    # ticker could not have run at all until the work was done (speed is a bench figure).
    assert during and during[0] >= 2, during


async def test_reduce_combines_parts_without_repeats(llm: MemoryLLM) -> None:
    parts = [
        'alice said: "I finally got the job at the bakery!". bob said about alice: "proud of her".',
        'alice said: "I finally got the job at the bakery!". alice said: "first shift at 5am".',
    ]
    reduced = await llm.reduce_daily(
        guild_id=9, members=[ALICE, BOB], parts={ALICE.user_id: parts}, max_chars=300
    )
    text = reduced[ALICE.user_id]
    assert reduced[BOB.user_id] == "", "a member with no parts gets nothing"
    assert text.count("got the job at the bakery") == 1
    assert "first shift at 5am" in text
    assert len(text) <= 300


async def test_history_keeps_days_in_order_with_dates(llm: MemoryLLM) -> None:
    days = [
        (date(2024, 5, 2), 'alice said: "the first week at the bakery is exhausting".'),
        (date(2024, 5, 1), 'alice said: "I finally got the job at the bakery!".'),
        (date(2024, 5, 3), 'alice said: "I like pizza more than anything".'),
    ]
    text = await llm.summarize_history(
        guild_id=9, member=ALICE, days=days, max_chars=500, forgotten=["alice likes pizza"]
    )
    assert text.index("May 1") < text.index("May 2")
    assert "pizza" not in text
    assert len(text) <= 500


async def test_a_rolled_history_takes_in_its_newest_days_when_the_old_one_is_full(
    llm: MemoryLLM,
) -> None:
    """The earlier narrative alone fills the length with dense quotes; the newer days must
    still get in (a narrative that kept only its old days would never change again)."""
    news = [
        "booked flights to Lisbon for the harbour festival with three cousins",
        "finished restoring the antique oak bookshelf from grandmother's attic",
        "started volunteering Saturdays at the riverside animal shelter kitchen",
        "won the regional chess tournament semifinal against a grandmaster",
        "painted a mural of lighthouses along the community garden fence",
    ]
    old = " ".join(f'May {day}: alice said: "{text}".' for day, text in enumerate(news, 2))
    text = await llm.summarize_history(
        guild_id=9,
        member=ALICE,
        days=[(date(2024, 5, 7), 'alice said: "adopted a cat".')],
        max_chars=300,
        previous=(date(2024, 5, 6), old),
        start_day=date(2024, 5, 2),
    )
    assert "May 7" in text and "adopted a cat" in text
    assert len(text) <= 300


# --- facts --------------------------------------------------------------------------------


async def _remember(llm: MemoryLLM, blob: str, statement: str, **kwargs: object) -> str:
    return await llm.remember(
        guild_id=9,
        member=ALICE,
        blob=blob,
        statement=statement,
        max_chars=int(kwargs.pop("max_chars", 500)),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


async def test_remember_appends_a_third_person_sentence(llm: MemoryLLM) -> None:
    blob = await _remember(llm, "", "alice lives in Paris")
    blob = await _remember(llm, blob, "likes pizza")
    blob = await _remember(llm, blob, "she plays the cello")
    assert blob == "alice lives in Paris. alice likes pizza. alice plays the cello."


async def test_remember_replaces_the_sentence_it_contradicts(llm: MemoryLLM) -> None:
    blob = "alice lives in Paris. alice likes pizza. alice works at the library."
    blob = await _remember(llm, blob, "alice lives in Berlin")
    assert blob == "alice lives in Berlin. alice likes pizza. alice works at the library."
    blob = await _remember(llm, blob, "alice hates pizza")
    assert "likes pizza" not in blob and "alice hates pizza." in blob
    blob = await _remember(llm, blob, "alice works at the bakery on Main Street")
    assert "library" not in blob and "bakery" in blob


async def test_remember_keeps_compatible_facts_and_merges_duplicates(llm: MemoryLLM) -> None:
    blob = "alice likes pizza. alice has a brother who lives in Rome."
    blob = await _remember(llm, blob, "alice likes sushi")
    blob = await _remember(llm, blob, "alice lives in Berlin")
    blob = await _remember(llm, blob, "Alice likes pizza")
    assert blob.count("pizza") == 1
    assert "sushi" in blob and "Rome" in blob and "Berlin" in blob


async def test_remember_never_readds_a_forgotten_statement(llm: MemoryLLM) -> None:
    blob = await _remember(
        llm,
        "alice lives in Berlin. alice likes pizza.",
        "alice likes pineapple on pizza",
        forgotten=["alice likes pizza"],
    )
    assert "pizza" not in blob
    assert blob == "alice lives in Berlin."


async def test_remember_respects_the_cap_and_keeps_the_new_fact(llm: MemoryLLM) -> None:
    blob = " ".join(f"alice visited city number {n}." for n in range(20))
    updated = await _remember(llm, blob, "alice lives in Berlin", max_chars=120)
    assert len(updated) <= 120
    assert updated.endswith("alice lives in Berlin.")


async def test_forget_removes_the_matching_fact(llm: MemoryLLM) -> None:
    result = await llm.forget(
        guild_id=9,
        member=ALICE,
        blob="alice lives in Berlin. Alice likes pizza. alice plays the cello.",
        statement="that she likes pizza",
    )
    assert result == ForgetOutput(found=True, blob="alice lives in Berlin. alice plays the cello.")


async def test_forget_of_an_absent_fact_reports_not_found(llm: MemoryLLM) -> None:
    blob = "alice lives in Berlin. alice plays the cello."
    result = await llm.forget(guild_id=9, member=ALICE, blob=blob, statement="alice has a dog")
    assert result == ForgetOutput(found=False, blob=blob)
    result = await llm.forget(guild_id=9, member=ALICE, blob=blob, statement="alice lives in Rome")
    assert result.found is False


async def test_merge_puts_facts_first_and_drops_repeats_and_conflicts(llm: MemoryLLM) -> None:
    text = await llm.merge_context(
        guild_id=9,
        member=ALICE,
        facts="alice lives in Berlin. alice plays the cello.",
        today='alice said: "I finally got the job at the bakery!". alice lives in Paris.',
        history='May 1: alice said: "the cello lessons are going great". alice plays the cello.',
        max_chars=400,
    )
    assert text.startswith("alice lives in Berlin. alice plays the cello.")
    assert "Today: alice said:" in text and "bakery" in text
    assert "Paris" not in text  # contradicts a fact: facts win
    assert text.count("alice plays the cello") == 1
    assert "cello lessons" in text
    assert len(text) <= 400


async def test_merge_never_returns_forgotten_statements(llm: MemoryLLM) -> None:
    text = await llm.merge_context(
        guild_id=9,
        member=ALICE,
        facts="alice lives in Berlin. alice likes pizza.",
        today='alice said: "pizza night again, I like pizza so much".',
        history="alice likes pizza and talks about it every day.",
        max_chars=400,
        forgotten=["alice likes pizza"],
    )
    assert "pizza" not in text
    assert text.startswith("alice lives in Berlin.")


async def test_merge_within_a_tight_cap(llm: MemoryLLM) -> None:
    facts = " ".join(f"alice has hobby number {n}." for n in range(30))
    text = await llm.merge_context(
        guild_id=9, member=ALICE, facts=facts, today="x said y.", history="", max_chars=100
    )
    # Over the budget the oldest facts go first: the newest is what a member most likely means.
    assert len(text) <= 100 and "alice has hobby number 29." in text
    assert "hobby number 0." not in text


# --- answers ------------------------------------------------------------------------------


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
    turns = _messages()
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
