"""A model's answer that is valid JSON but says nothing (issue 33): the schema's or the
example's text, names nobody in the chat has, statements the chat never made, empty lists,
placeholder answers. Each such item is replaced by the offline provider's, and the swap is
told in telemetry (`outcome: degraded, reason: unusable_output`). The real openai SDK
against a loopback server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from typing import Any

import pytest

from memory.core.telemetry import Telemetry
from memory.llm import MemoryLLM, PromptMember, PromptMessage
from memory.llm.offline import OfflineProvider
from memory.llm.providers import ProviderChain, RetryPolicy
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from tests.memory.llm.conftest import RecordingSleep
from tests.memory.llm.fake_http import FakeHTTPServer, Reply, openai_text

ALICE = PromptMember(user_id=11, name="alice")
BOB = PromptMember(user_id=12, name="bob")
AT = datetime(2026, 5, 4, 9, tzinfo=UTC)
MESSAGES = [
    PromptMessage(
        message_id=1,
        timestamp=AT,
        author_id=ALICE.user_id,
        author_name="alice",
        content="I moved to Lisbon last year, I love it here",
    ),
    PromptMessage(
        message_id=2,
        timestamp=AT,
        author_id=BOB.user_id,
        author_name="bob",
        content="careful on the trail, I'm allergic to wasps",
    ),
]
STRETCH: dict[str, Any] = {
    "guild_id": 5,
    "day": date(2026, 5, 4),
    "timezone": "UTC",
    "messages": MESSAGES,
    "members": [ALICE, BOB],
    "max_chars": 300,
}


@pytest.fixture
async def model(
    fake_http: FakeHTTPServer, telemetry: Telemetry, sleeps: RecordingSleep
) -> AsyncIterator[MemoryLLM]:
    provider = OpenAICompatibleProvider(
        base_url=fake_http.base_url + "/v1", model="smollm2", timeout_seconds=5
    )
    chain = ProviderChain(
        [provider, OfflineProvider()],
        policy=RetryPolicy(max_retries=1, backoff_base=0.0, timeout=5),
        telemetry=telemetry,
        sleep=sleeps,
        jitter=lambda: 0.5,
    )
    try:
        yield MemoryLLM(chain, telemetry=telemetry, offline=OfflineProvider())
    finally:
        await chain.aclose()


OFFLINE = MemoryLLM(OfflineProvider())


def _answer(fake_http: FakeHTTPServer, value: dict[str, Any]) -> None:
    fake_http.queue(Reply(body=openai_text(json.dumps(value))))


def _degraded(telemetry: Telemetry) -> list[dict[str, Any]]:
    return [e for e in telemetry.recent("llm_call") if e["outcome"] == "degraded"]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(  # the prompt's own example, copied
            {
                "summaries": ["NAME: NOTE"],
                "facts": [
                    {"user_id": "NAME", "subject": "home", "statement": "NAME lives in TOWN."}
                ],
            },
            id="example-echo",
        ),
        pytest.param(  # the schema's descriptions, copied
            {
                "summaries": ['one "name: text" per member'],
                "facts": [
                    {
                        "user_id": "the member it is about, named as in the chat",
                        "subject": "home",
                        "statement": "one short third-person sentence",
                    }
                ],
            },
            id="schema-echo",
        ),
        pytest.param({"summaries": [], "facts": []}, id="empty-lists"),
        pytest.param(
            {"summaries": ["zed: Zed climbed Everest.", "carol: Carol sang."], "facts": []},
            id="unknown-names",
        ),
    ],
)
async def test_a_stretch_answer_that_says_nothing_is_no_emptier_than_offline(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry, answer: dict[str, Any]
) -> None:
    _answer(fake_http, answer)
    notes, learned = await model.summaries.read_stretch(**STRETCH)
    offline_notes, offline_learned = await OFFLINE.summaries.read_stretch(**STRETCH)
    assert notes == offline_notes and all(notes.values())
    assert learned == offline_learned and learned  # Lisbon, wasps
    [degraded] = _degraded(telemetry)
    assert degraded["reason"] == "unusable_output" and degraded["purpose"] == "daily_summary"
    assert degraded["provider"] == "openai" and degraded["items"] >= 2


async def test_ungrounded_statements_are_dropped_and_good_items_kept(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    _answer(
        fake_http,
        {
            "summaries": [
                "alice: Alice moved to Lisbon last year and loves it.",
                "bob: Bob owns a spaceship and flies it to Mars.",
            ],
            "facts": [
                {"user_id": "bob", "subject": "health", "statement": "Bob is allergic to wasps."},
                {"user_id": "bob", "subject": "pet", "statement": "Bob has a pet dragon."},
            ],
        },
    )
    notes, learned = await model.summaries.read_stretch(**STRETCH)
    offline_notes, _ = await OFFLINE.summaries.read_stretch(**STRETCH)
    assert notes[ALICE.user_id] == "Alice moved to Lisbon last year and loves it."
    assert notes[BOB.user_id] == offline_notes[BOB.user_id]
    statements = [item.statement for item in learned]
    assert "Bob is allergic to wasps." in statements  # the model's good fact
    assert not any("dragon" in s for s in statements)
    assert "Alice lives in Lisbon." in statements  # the offline learner's, not covered
    [degraded] = _degraded(telemetry)
    assert "ungrounded" in degraded["detail"]


async def test_a_meaningful_answer_is_kept_whole(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    _answer(
        fake_http,
        {
            "summaries": [
                "alice: Alice moved to Lisbon last year and loves living there.",
                "bob: Bob warned about the trail; he is allergic to wasps.",
            ],
            "facts": [
                {"user_id": "bob", "subject": "health", "statement": "Bob is allergic to wasps."}
            ],
        },
    )
    notes, learned = await model.summaries.read_stretch(**STRETCH)
    assert notes[BOB.user_id] == "Bob warned about the trail; he is allergic to wasps."
    assert [item.statement for item in learned] == ["Bob is allergic to wasps."]
    assert _degraded(telemetry) == []
    sent = fake_http.requests[0].body
    assert 0 < sent["max_tokens"] < 2000  # an output budget, not the context size


async def test_a_placeholder_whois_answer_gives_way_to_the_stored_facts(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    _answer(fake_http, {"text": "the answer"})
    memory = "Alice lives in Lisbon. Alice plays the violin."
    answer = await model.whois(
        guild_id=5,
        member=ALICE,
        memory=memory,
        question="what do you know about me?",
        asker_name="alice",
        bot_name="Bot",
    )
    assert "Lisbon" in answer and "violin" in answer
    assert [e["detail"] for e in _degraded(telemetry)] == ["echo"]


async def test_a_whois_answer_that_forgets_the_facts_is_replaced(
    model: MemoryLLM, fake_http: FakeHTTPServer
) -> None:
    _answer(fake_http, {"text": "I don't know anything about Alice yet."})
    answer = await model.whois(
        guild_id=5,
        member=ALICE,
        memory="Alice lives in Lisbon. Alice plays the violin.",
        question="what do you know about alice?",
        asker_name="bob",
        bot_name="Bot",
    )
    assert "Lisbon" in answer


async def test_an_echoed_merge_keeps_the_old_facts_and_the_new_one(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    _answer(fake_http, {"text": "the whole updated memory"})
    blob = await model.remember(
        guild_id=5,
        member=ALICE,
        blob="Alice lives in Lisbon.",
        statement="alice plays the violin",
        max_chars=500,
    )
    assert "Lisbon" in blob and "violin" in blob
    assert _degraded(telemetry)[0]["purpose"] == "remember"


async def test_a_router_echo_is_routed_offline(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry
) -> None:
    _answer(
        fake_http,
        {
            "kind": "remember",
            "target": "who, or null",
            "statement": "the fact, or null",
        },
    )
    text = "Bot remember that alice plays the violin"
    intent = await model.route(text=text, bot_name="Bot", author_name="bob")
    offline = await OFFLINE.route(text=text, bot_name="Bot", author_name="bob")
    assert intent == offline and intent.statement == "alice plays the violin"
    assert _degraded(telemetry)[0]["purpose"] == "route"


@pytest.mark.parametrize(
    "said",
    [
        "functions.learned_facts:\n{ &#34;member&#34; : &#34;alice&#34;}",  # a call as text
        "<memories>alice: lives in Lisbon</memories>",  # the prompt's own markup
    ],
)
async def test_a_reply_that_is_no_answer_is_the_offline_reply(
    model: MemoryLLM, fake_http: FakeHTTPServer, telemetry: Telemetry, said: str
) -> None:
    fake_http.queue(Reply(body=openai_text(said)), Reply(body=openai_text(said)))
    inputs: dict[str, object] = {
        "message": "hi",
        "author_name": "alice",
        "bot_name": "Bot",
        "memories": [],
    }
    text = await model.reply(prompt="<message>hi</message>", inputs=inputs, guild_id=5)
    offline = await OFFLINE.reply(prompt="<message>hi</message>", inputs=inputs, guild_id=5)
    assert text == offline and text
    assert [e["purpose"] for e in _degraded(telemetry)] == ["reply"]
