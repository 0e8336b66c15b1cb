"""MemoryCommands end to end below Discord: real PostgreSQL, the offline provider (a scripted
model where a test needs one; the LLM router path is in test_commands_router.py). Each test
reads like a conversation with the bot."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from db.facts import get_facts, get_forgotten, get_history
from db.members import find_by_name, upsert_members
from memory.commands import MemoryCommands, RepliedMessage
from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.language import identity_alias
from tests.memory.commands.commands_support import ADMIN, ALICE, BOB, G, build, say
from tests.memory.facts_support import scripted_memory_model


async def test_remember_that_alice_is_sergey_adds_an_alias(
    bot: MemoryCommands, db_pool: asyncpg.Pool
) -> None:
    result = await say(bot, BOB, "remember that alice is Sergey", message_id=900)
    assert result.outcome == "ok" and result.target_id == 1
    assert result.reply == (
        "Got it, I'll remember that about Alice. I'll also know \"Sergey\" means Alice."
    )
    assert "Sergey" in await bot.facts.blob(G, 1)
    assert [m.user_id for m in await find_by_name(db_pool, G, "sergey")] == [1]
    [entry] = await get_history(db_pool, G, 1)
    assert entry.actor_id == 2 and entry.source_message_id == 900
    assert entry.command == "remember that alice is Sergey"

    # the new name works straight away
    answer = await say(bot, BOB, "what do you know about Sergey?")
    assert answer.kind == "whois" and "Sergey" in (answer.reply or "")


async def test_remember_this_about_bob_uses_the_replied_message(bot: MemoryCommands) -> None:
    replied = RepliedMessage("I just adopted a cat", author_id=2, author_name="Bobby")
    result = await say(bot, ALICE, "remember this about bob", replied_to=replied)
    assert result.outcome == "ok" and result.target_id == 2
    assert "Bobby just adopted a cat" in await bot.facts.blob(G, 2)


async def test_remember_this_without_a_target_is_about_the_quoted_author(
    bot: MemoryCommands,
) -> None:
    replied = RepliedMessage("I play the drums", author_id=2, author_name="Bobby")
    result = await say(bot, ALICE, "remember this", replied_to=replied)
    assert result.target_id == 2
    assert "Bobby plays the drums" in await bot.facts.blob(G, 2)


async def test_remember_this_without_a_reply_asks_for_one(bot: MemoryCommands) -> None:
    result = await say(bot, ALICE, "remember this about bob")
    assert result.outcome == "invalid" and "Reply to the message" in (result.reply or "")


async def test_forget_that_alice_likes_pizza_reports_found_and_sticks(
    bot: MemoryCommands, db_pool: asyncpg.Pool
) -> None:
    await say(bot, ALICE, "remember that I like pizza")
    await say(bot, ALICE, "remember that I have a cat")
    assert "pizza" in await bot.facts.blob(G, 1)

    found = await say(bot, ALICE, "forget that alice likes pizza")
    assert found.outcome == "ok" and found.reply == "Done, I've forgotten that about Alice."
    assert "pizza" not in await bot.facts.blob(G, 1)
    missing = await say(bot, ALICE, "forget that alice plays chess")
    assert missing.outcome == "not_found" and "didn't have that" in (missing.reply or "")

    # a later remember of something else does not bring the pizza back
    await say(bot, BOB, "remember that alice lives in Berlin")
    blob = await bot.facts.blob(G, 1)
    assert "Berlin" in blob and "cat" in blob and "pizza" not in blob
    assert "alice likes pizza" in await get_forgotten(db_pool, G, 1)


async def test_what_do_you_know_about_mention_and_name(bot: MemoryCommands) -> None:
    empty = await say(bot, ALICE, "what do you know about bob")
    assert empty.outcome == "empty" and empty.reply == "I don't know anything about Bobby yet."
    await say(bot, ALICE, "remember that bob plays bass")
    by_mention = await say(bot, ALICE, "What do you know about <@2>?")
    by_name = await say(bot, ALICE, "what do you know about bob")
    assert by_mention.reply == by_name.reply
    assert by_mention.outcome == "ok" and "bass" in (by_mention.reply or "")


async def test_me_myself_and_i(bot: MemoryCommands) -> None:
    await say(bot, ALICE, "remember that I'm a nurse")
    await say(bot, ALICE, "remember about myself: likes jazz")
    blob = await bot.facts.blob(G, 1)
    assert "Alice is a nurse" in blob and "jazz" in blob
    answer = await say(bot, ALICE, "what do you know about me?")
    assert answer.target_id == 1 and "nurse" in (answer.reply or "")
    assert (await say(bot, ALICE, "who am I?")).target_id == 1


async def test_ambiguous_name_gets_a_question_not_a_guess(
    bot: MemoryCommands, db_pool: asyncpg.Pool
) -> None:
    result = await say(bot, ALICE, "remember that sam likes golf")
    assert result.outcome == "ambiguous"
    assert result.reply == (
        'Several people here go by "sam": Sam (@sam_a, id 3); Sam (@sam_b, id 4). '
        "Which one do you mean? Mention them or use their id."
    )
    assert await get_facts(db_pool, G, 3) is None and await get_facts(db_pool, G, 4) is None
    # answering with a mention settles it
    settled = await say(bot, ALICE, "remember that <@4> likes golf")
    assert settled.target_id == 4 and "golf" in await bot.facts.blob(G, 4)


async def test_unknown_member_gets_a_clear_message(bot: MemoryCommands) -> None:
    result = await say(bot, ALICE, "what do you know about zed")
    assert result.outcome == "unknown"
    assert result.reply == 'I don\'t know anyone called "zed" here. Try mentioning them.'


async def test_permissions_for_forget_and_undo(
    bot: MemoryCommands, db_pool: asyncpg.Pool, telemetry: Telemetry
) -> None:
    await say(bot, BOB, "remember that alice likes tea")
    refused = await say(bot, BOB, "forget that alice likes tea")
    assert refused.outcome == "refused"
    assert refused.reply == (
        "Sorry, only Alice or someone with the Manage Server permission can make me forget "
        "things about Alice."
    )
    assert "tea" in await bot.facts.blob(G, 1)
    assert any(e["outcome"] == "refused" for e in telemetry.recent("command"))

    undo_refused = await bot.undo(G, BOB, ALICE)
    assert undo_refused.outcome == "refused"

    by_admin = await say(bot, ADMIN, "forget that alice likes tea", author_can_manage_guild=True)
    assert by_admin.outcome == "ok"
    undone = await bot.undo(G, ALICE, ALICE)  # the member themself may undo
    assert undone.outcome == "ok" and "tea" in await bot.facts.blob(G, 1)
    # anyone may add
    assert (await say(bot, BOB, "remember that alice has a dog")).outcome == "ok"


async def test_forgetting_others_can_be_opened_up(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    bot = build(db_pool, telemetry, forget_others_requires_manage_guild=False)
    await say(bot, BOB, "remember that alice likes tea")
    assert (await say(bot, BOB, "forget that alice likes tea")).outcome == "ok"


async def test_undo_restores_previous_versions(bot: MemoryCommands) -> None:
    await say(bot, ALICE, "remember that I like tea")
    await say(bot, ALICE, "remember that I like coffee")
    first = await bot.undo(G, ALICE, "me")
    assert first.outcome == "ok" and "coffee" not in await bot.facts.blob(G, 1)
    second = await bot.undo(G, ALICE, ALICE)
    assert second.outcome == "ok" and await bot.facts.blob(G, 1) == ""
    nothing = await bot.undo(G, ALICE, ALICE)
    assert nothing.outcome == "nothing" and nothing.reply == "There's nothing to undo for Alice."


async def test_rate_limit_warns_once_then_stays_quiet(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    bot = build(db_pool, telemetry, clock=clock, commands_per_minute=2)
    assert (await say(bot, ALICE, "remember that I like tea")).outcome == "ok"
    assert (await say(bot, ALICE, "remember that I like jam")).outcome == "ok"
    warned = await say(bot, ALICE, "remember that I like toast")
    assert warned.outcome == "rate_limited" and "Please wait 60s" in (warned.reply or "")
    quiet = await say(bot, ALICE, "remember that I like eggs")
    assert quiet.outcome == "rate_limited" and quiet.reply is None
    # slash commands always get an answer
    assert (await bot.whois(G, ALICE, ALICE)).reply
    # other members are not affected, and the window slides
    assert (await say(bot, BOB, "remember that I like tea")).outcome == "ok"
    clock.advance(timedelta(seconds=61))
    assert (await say(bot, ALICE, "remember that I like eggs")).outcome == "ok"
    assert "toast" not in await bot.facts.blob(G, 1)


async def test_oversize_fact_rejected_with_the_limit(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    bot = build(db_pool, telemetry, fact_statement_max_chars=40)
    result = await say(bot, ALICE, "remember that I " + "really " * 10 + "like tea")
    assert result.outcome == "too_long"
    assert "at most 40 characters" in (result.reply or "")
    assert await bot.facts.blob(G, 1) == ""


async def test_model_failure_changes_nothing_and_says_so(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    provider = scripted_memory_model()
    bot = build(db_pool, telemetry, provider)
    await say(bot, ALICE, "remember that I like tea")
    provider.fail("remember")
    result = await say(bot, ALICE, "remember that I like jam")
    assert result.outcome == "failed" and "nothing was changed" in (result.reply or "")
    assert await bot.facts.blob(G, 1) == "Alice likes tea."


async def test_whois_uses_the_full_memory_context_when_given(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    async def memories(guild_id: int, user_id: int) -> str | None:
        return "Alice was cheerful today." if user_id == 1 else None

    bot = build(db_pool, telemetry, memories=memories)
    answer = await say(bot, BOB, "what do you know about alice")
    assert "cheerful" in (answer.reply or "")
    # when no context can be built, the stored facts still answer
    await say(bot, BOB, "remember that bob plays bass")
    assert "bass" in ((await say(bot, ALICE, "what do you know about bob")).reply or "")


async def test_memories_of_one_guild_never_appear_in_another(
    bot: MemoryCommands, db_pool: asyncpg.Pool
) -> None:
    await say(bot, BOB, "remember that alice is Sergey")
    await say(bot, BOB, "remember that alice likes pizza")
    other = G + 1
    await upsert_members(db_pool, [Member(other, 1, username="alice"), Member(other, 2, "bob")])
    answer = await bot.handle(other, Member(other, 2, "bob"), "what do you know about alice")
    assert answer is not None and answer.outcome == "empty"
    unknown = await bot.handle(other, Member(other, 2, "bob"), "what do you know about Sergey")
    assert unknown is not None and unknown.outcome == "unknown"
    assert await get_facts(db_pool, other, 1) is None


async def test_slash_commands_share_the_same_behaviour(bot: MemoryCommands) -> None:
    ok = await bot.remember(G, BOB, ALICE, "alice speaks French")
    assert ok.outcome == "ok" and "French" in await bot.facts.blob(G, 1)
    who = await bot.whois(G, BOB, ALICE)
    assert "French" in (who.reply or "")
    refused = await bot.forget(G, BOB, ALICE, "alice speaks French")
    assert refused.outcome == "refused"
    allowed = await bot.forget(G, BOB, ALICE, "alice speaks French", can_manage_guild=True)
    assert allowed.outcome == "ok" and "French" not in await bot.facts.blob(G, 1)


@pytest.mark.parametrize(
    ("statement", "alias"),
    [
        ("alice is Sergey", "Sergey"),
        ("alice is also known as Big Al", "Big Al"),
        ("alice's real name is Sergey", "Sergey"),
        ("she goes by Serge", "Serge"),
        ("alice is Russian", None),
        ("alice is happy", None),
        ("bob is Sergey", None),
    ],
)
def test_identity_statements(statement: str, alias: str | None) -> None:
    assert identity_alias(statement, ["alice"]) == alias


async def test_contradicting_someone_elses_fact_is_kept_as_a_claim_not_an_overwrite(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    commands = build(db_pool, telemetry)
    await commands.remember(G, ALICE, ALICE, "alice likes pizza")
    result = await commands.handle(G, BOB, "remember that alice hates pizza")
    assert result is not None and result.outcome == "attributed"
    assert "only Alice or someone with the Manage Server permission" in (result.reply or "")
    stored = await _blob(db_pool, ALICE.user_id)
    assert "alice likes pizza." in stored.lower()  # not erased by someone else
    assert "Bobby says" in stored and "hates pizza" in stored
    # The member themself (or a manager) may change their own fact.
    await commands.handle(G, ALICE, "remember that I hate pizza")
    assert "likes pizza" not in await _blob(db_pool, ALICE.user_id)


async def test_facts_that_outgrow_the_cap_are_named_when_let_go(
    db_pool: asyncpg.Pool, telemetry: Telemetry, members: None
) -> None:
    commands = build(db_pool, telemetry, facts_max_chars=120)
    facts = [
        "bob collects blue stamps",
        "bob owns a red kayak",
        "bob speaks fluent Japanese",
        "bob grows tomatoes on his balcony",
        "bob bakes sourdough every Sunday",
    ]
    replies = [(await commands.remember(G, ALICE, BOB, fact)).reply or "" for fact in facts]
    assert all(reply.startswith("Got it") for reply in replies)
    told = " ".join(reply for reply in replies if "I no longer keep:" in reply)
    assert "To stay within 120 characters I no longer keep:" in told
    assert "blue stamps" in told  # the member hears which fact was let go of
    stored = await _blob(db_pool, BOB.user_id)
    assert "sourdough" in stored and "blue stamps" not in stored  # the newest is kept


async def test_who_is_naming_nobody_is_left_to_the_reply_path(bot: MemoryCommands) -> None:
    """'who is allergic to wasps?' asks about what was said: not a whois of a member called
    'allergic to wasps' (the reply path searches for it)."""
    assert await bot.handle(G, ALICE, "who is allergic to wasps?") is None
    assert (await say(bot, ALICE, "what do you know about zed")).outcome == "unknown"
    assert (await say(bot, ALICE, "who is alice?")).target_id == 1


async def _blob(pool: asyncpg.Pool, user_id: int) -> str:
    record = await get_facts(pool, G, user_id)
    assert record is not None, f"no facts stored about {user_id}"
    return record.blob
