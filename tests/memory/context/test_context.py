"""Context assembly: bounded lengths, facts first in the fallback, forgotten sentences dropped,
stored messages rendered with names."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.context._merge import TODAY_LABEL, assemble_fallback, attach_today, attached, bound
from memory.core.models import ChatMessage, Member
from memory.members import prompt_member, render_messages
from memory.summaries import drop_forgotten


def test_bound_cuts_at_a_sentence_or_word_within_the_limit() -> None:
    text = "Alice is a nurse. She lives in Lyon and likes long walks by the river."
    assert bound(text, 200) == text
    assert bound(text, 30) == "Alice is a nurse."
    assert bound(text, 40) == "Alice is a nurse. She lives in Lyon…"
    cut = bound("word " * 100, 52)
    assert len(cut) <= 52 and cut.endswith("…") and not cut.endswith(" …")


def test_fallback_keeps_facts_first_and_stays_within_budget() -> None:
    facts = "Alice is a nurse in Lyon."
    text = assemble_fallback(facts, "Today " * 100, "History " * 100, 200)
    assert text is not None and len(text) <= 200
    assert text.splitlines()[0] == "Facts: Alice is a nurse in Lyon."
    assert text.splitlines()[1].startswith("Today: Today")
    assert assemble_fallback(facts, "", "", 200) == facts
    assert assemble_fallback("", "", "", 200) is None
    long_facts = assemble_fallback("Fact. " * 100, "today", "history", 120)
    assert (
        long_facts is not None and long_facts.startswith("Facts: Fact.") and len(long_facts) <= 120
    )


def test_forgotten_statements_are_dropped_even_when_rephrased() -> None:
    summary = (
        "Alice talked about work. She said she really loves pineapple pizza! "
        "Alice went to the gym.\nAlice ordered a pizza with ham."
    )
    text, dropped = drop_forgotten(summary, ["Alice loves pineapple pizza"], ["Alice"])
    assert dropped == 1
    assert "pineapple" not in text
    assert "Alice went to the gym." in text and "pizza with ham" in text
    assert drop_forgotten(summary, [], ["Alice"]) == (summary, 0)


def test_rendering_uses_current_names_and_skips_deleted_messages() -> None:
    members = {
        1: Member(guild_id=9, user_id=1, username="alice", nickname="Ali"),
        2: Member(guild_id=9, user_id=2, global_name="Bobby", aliases=("Robert",)),
    }
    at = datetime(2026, 1, 1, tzinfo=UTC)
    messages = [
        ChatMessage(10, 9, 5, 1, "hi <@2> and <@!3>", at, mention_ids=(2, 3)),
        ChatMessage(11, 9, 5, 2, "", at, deleted=True),
        ChatMessage(12, 9, 5, 3, "who am I", at, reply_to_id=10),
    ]
    rendered = render_messages(messages, members)
    assert [(m.author_name, m.content) for m in rendered] == [
        ("Ali", "hi @Bobby and @user 3"),
        ("user 3", "who am I"),
    ]
    assert rendered[1].reply_to_id == 10
    member = prompt_member(2, members)
    assert (member.name, member.aliases) == ("Bobby", ["Robert"])


def test_other_members_sentences_go_only_when_they_name_the_member() -> None:
    from memory.summaries._forgetting import ForgottenAbout, drop_guild_forgotten

    alice = ForgottenAbout(1, ("Alice", "alice_w"), ("Alice loves pineapple pizza",))
    bob_summary = (
        "Bob said alice_w loves pineapple pizza. Bob loves pineapple pizza too. Bob baked bread."
    )
    text, dropped = drop_guild_forgotten(bob_summary, 2, [alice])
    assert (text, dropped) == ("Bob loves pineapple pizza too. Bob baked bread.", 1)
    # In Alice's own summaries the sentence goes even when it only says "she".
    assert drop_guild_forgotten("She loves pineapple pizza. Hi.", 1, [alice]) == ("Hi.", 1)


def test_facts_over_the_context_budget_keep_the_newest() -> None:
    from memory.context._merge import assemble_fallback

    facts = " ".join(f"Bob knows fact number {n} by heart." for n in range(60))
    served = assemble_fallback(facts, "", "", 1200)
    assert served is not None and len(served) <= 1200
    assert "fact number 59 by heart." in served  # the newest fact survives the cut
    assert "fact number 0 by heart." not in served


def test_a_merge_that_fills_the_budget_still_leaves_room_for_the_news() -> None:
    """A model's merge may use its whole length: the newer days of a narrative behind and
    today's notes keep their shares, and the whole stays within the budget."""
    merged = "Alice is a baker in Lyon. " * 60  # 1,560 characters
    newer = "Mar 13: Alice adopted a greyhound."
    text = attach_today(merged, "Alice got a promotion.", 1200, newest=newer)
    assert text is not None and len(text) <= 1200
    head, middle, last = text.split("\n")
    assert head.startswith("Alice is a baker") and middle == newer
    assert last == TODAY_LABEL + "Alice got a promotion."


def test_attached_days_alone_are_cut_to_the_budget() -> None:
    """No notes today: the merge and the newer days still fit the budget together."""
    text = attach_today("Bob cooks. " * 30, "", 200, newest="Mar 12: " + "Bob sailed. " * 40)
    assert text is not None and len(text) <= 200
    assert text.startswith("Bob cooks.") and "\nMar 12: Bob sailed." in text
    assert attach_today(None, "", 200) is None
    assert attach_today(None, "just today", 200) == "just today"


def test_the_served_text_keeps_the_merge_as_the_very_string_cached() -> None:
    """The warm path keeps the merge and what follows it apart: the merge is the context
    cache's own string (no second copy per member), the whole is what is served."""
    merged = "".join(["Alice is a baker in Lyon. ", "She likes ferries. "]).strip()
    head, tail = attached(merged, "Alice got a promotion.", 1200, newest="Mar 13: a greyhound.")
    assert head is merged
    assert head + tail == attach_today(
        merged, "Alice got a promotion.", 1200, newest="Mar 13: a greyhound."
    )
    assert attached(merged, "", 1200) == (merged, "")
