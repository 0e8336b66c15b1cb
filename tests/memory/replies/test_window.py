"""Conversation window: budget folding, soft and hard decay, fitting a prompt budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.core.clock import FixedClock
from memory.core.models import Member
from memory.core.telemetry import Telemetry
from memory.core.tokens import estimate_tokens
from memory.replies._window import ConversationWindows, Turn, WindowFolding, WindowView

START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
CHANNEL = 42
CHANNEL_GUILD = 4


class RecordingFolder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, list[Turn]]] = []
        self.fail = fail

    async def fold_turns(self, summary: str, turns: list[Turn]) -> str:
        self.calls.append((summary, list(turns)))
        if self.fail:
            raise RuntimeError("llm down")
        said = "; ".join(f"{t.author_name} said {t.content}" for t in turns)
        return f"{summary} {said}".strip()


def _turn(n: int, clock: FixedClock, text: str = "hello there") -> Turn:
    return Turn(n, 1, "alice", f"{text} #{n}", clock.now())


def _windows(
    folder: WindowFolding,
    clock: FixedClock,
    budget: int = 200,
    telemetry: Telemetry | None = None,
) -> ConversationWindows:
    return ConversationWindows(
        folder,
        clock,
        token_budget=budget,
        soft_decay=timedelta(minutes=10),
        hard_decay=timedelta(minutes=30),
        telemetry=telemetry or Telemetry(),
    )


async def test_recent_turns_stay_verbatim_under_budget() -> None:
    clock, folder = FixedClock(START), RecordingFolder()
    windows = _windows(folder, clock)
    for n in range(3):
        await windows.add(CHANNEL, _turn(n, clock))
    view = await windows.view(CHANNEL)
    assert [t.content for t in view.turns] == ["hello there #0", "hello there #1", "hello there #2"]
    assert view.summary == "" and folder.calls == []


async def test_past_70_percent_the_oldest_half_is_folded_in_one_call() -> None:
    clock, folder = FixedClock(START), RecordingFolder()
    windows = _windows(folder, clock, budget=100)
    added = 0
    while not folder.calls:
        await windows.add(CHANNEL, _turn(added, clock, "a fairly long message about the weather"))
        added += 1
    view = await windows.view(CHANNEL)
    assert len(folder.calls) == 1
    folded = folder.calls[0][1]
    assert len(folded) == added // 2, "the oldest half is folded"
    assert folded[0].message_id == 0
    assert "alice said a fairly long message about the weather #0" in view.summary
    assert view.turns[0].message_id == added // 2
    assert view.tokens() <= 100


async def test_soft_decay_folds_window_after_silence_and_hard_decay_clears_it() -> None:
    clock, folder = FixedClock(START), RecordingFolder()
    telemetry = Telemetry()
    windows = _windows(folder, clock, telemetry=telemetry)
    await windows.add(CHANNEL, _turn(1, clock, "we are planning the trip to Lisbon"))
    clock.advance(timedelta(minutes=9))
    assert len((await windows.view(CHANNEL)).turns) == 1

    clock.advance(timedelta(minutes=2))  # 11 minutes of silence
    view = await windows.view(CHANNEL)
    assert view.turns == ()
    assert "planning the trip to Lisbon" in view.summary

    clock.advance(timedelta(minutes=20))  # 31 minutes since the last message
    view = await windows.view(CHANNEL)
    assert view == WindowView("", ())
    kinds = [e["kind"] for e in telemetry.recent("window_decay")]
    assert kinds == ["soft", "hard"]


async def test_failed_fold_drops_old_turns_instead_of_raising() -> None:
    clock, folder = FixedClock(START), RecordingFolder(fail=True)
    telemetry = Telemetry()
    windows = _windows(folder, clock, budget=100, telemetry=telemetry)
    for n in range(20):
        await windows.add(CHANNEL, _turn(n, clock, "another message that takes some room"))
    view = await windows.view(CHANNEL)
    assert view.tokens() <= 100
    assert view.turns[-1].message_id == 19
    assert telemetry.recent("window_fold")[0]["outcome"] == "error"


def test_fitting_drops_oldest_turns_first_then_trims_summary() -> None:
    turns = tuple(Turn(n, 1, "bob", "word " * 20, START) for n in range(5))
    view = WindowView("summary " * 10, turns)
    per_turn, summary_tokens = turns[0].tokens, estimate_tokens(view.summary)

    fitted = view.fitted(summary_tokens + per_turn * 2)
    assert [t.message_id for t in fitted.turns] == [3, 4]
    assert fitted.summary == view.summary

    tiny = view.fitted(summary_tokens // 2)
    assert tiny.turns == ()
    assert 0 < estimate_tokens(tiny.summary) <= summary_tokens // 2


@pytest.mark.parametrize("text", ["", "hi", "Привет, как дела?", "🎉" * 10, "x" * 4001])
def test_token_estimate_is_deterministic_and_monotonic(text: str) -> None:
    assert estimate_tokens(text) == estimate_tokens(text)
    assert estimate_tokens(text + " more words") >= estimate_tokens(text)


async def test_windows_held_in_memory_stay_bounded() -> None:
    clock = FixedClock(datetime(2026, 11, 1, 12, tzinfo=UTC))

    class NeverFolds:
        async def fold_turns(self, summary: str, turns: list[Turn]) -> str:
            raise AssertionError("no fold expected")

    windows = ConversationWindows(
        NeverFolds(),
        clock,
        token_budget=2000,
        soft_decay=timedelta(minutes=10),
        hard_decay=timedelta(minutes=30),
        telemetry=Telemetry(),
        max_channels=100,
    )
    for channel in range(5_000):  # thousands of channels speak once each
        await windows.add(channel, _turn(channel, clock))
    assert len(windows) == 100
    clock.advance(timedelta(minutes=31))  # silent past the hard decay: dropped entirely
    await windows.add(99_999, _turn(1, clock))
    assert len(windows) == 1


async def test_name_indexes_are_bounded_per_guild() -> None:
    from memory.members import NameIndexCache

    async def load(guild_id: int) -> list[Member]:
        return []

    names = NameIndexCache(load, max_guilds=50)
    for guild_id in range(1_000):
        await names.get(guild_id)
    assert len(names) == 50


# --- gone means gone ----------------------------------------------------------------------


def _said(
    n: int, author: int, name: str, text: str, at: datetime, reply_to: int | None = None
) -> Turn:
    return Turn(n, author, name, text, at, reply_to)


async def test_a_deleted_message_and_the_bots_answer_to_it_leave_the_window() -> None:
    clock = FixedClock(START)
    windows = _windows(RecordingFolder(), clock, budget=2000)
    await windows.add(CHANNEL, _said(1, 1, "alice", "my address is 42 Elm St", clock.now()))
    await windows.add(CHANNEL, _said(2, 99, "Bot", "noted, 42 Elm St", clock.now(), reply_to=1))
    await windows.add(CHANNEL, _said(3, 2, "bob", "hello", clock.now()))

    assert await windows.drop_messages([1]) == 2

    assert [t.content for t in (await windows.view(CHANNEL)).turns] == ["hello"]


async def test_a_summary_folded_from_a_deleted_or_edited_message_is_dropped() -> None:
    clock, folder = FixedClock(START), RecordingFolder()
    windows = _windows(folder, clock, budget=100)
    n = 0
    while not folder.calls:
        await windows.add(CHANNEL, _turn(n, clock, text="the safe code is 7319"))
        n += 1
    assert "7319" in (await windows.view(CHANNEL)).summary

    assert await windows.edit_message(0, "never mind")

    view = await windows.view(CHANNEL)
    assert view.summary == ""
    assert all(t.message_id != 0 for t in view.turns)  # it was folded, not held verbatim


async def test_an_edit_replaces_the_old_text_of_a_turn() -> None:
    clock = FixedClock(START)
    windows = _windows(RecordingFolder(), clock, budget=2000)
    await windows.add(CHANNEL, _said(5, 1, "alice", "the code is 7319", clock.now()))

    assert await windows.edit_message(5, "ask me later")

    assert [t.content for t in (await windows.view(CHANNEL)).turns] == ["ask me later"]


async def test_an_opted_out_member_leaves_only_their_guilds_windows() -> None:
    clock, folder = FixedClock(START), RecordingFolder()
    windows = _windows(folder, clock, budget=2000)
    await windows.add(1, _said(1, 7, "alice", "secret one", clock.now()), guild_id=10)
    await windows.add(1, _said(2, 99, "Bot", "ok", clock.now(), reply_to=1), guild_id=10)
    await windows.add(1, _said(3, 8, "bob", "hi all", clock.now()), guild_id=10)
    await windows.add(2, _said(4, 7, "alice", "other server", clock.now()), guild_id=20)

    assert await windows.drop_author(10, 7) == 2

    assert [t.content for t in (await windows.view(1)).turns] == ["hi all"]
    assert [t.content for t in (await windows.view(2)).turns] == ["other server"]


async def test_a_forgotten_statement_leaves_turns_about_the_member() -> None:
    clock = FixedClock(START)
    windows = _windows(RecordingFolder(), clock, budget=2000)
    await windows.add(CHANNEL, _said(1, 7, "judy", "I am a nurse. Night shifts!", clock.now()))
    await windows.add(CHANNEL, _said(2, 8, "kim", "judy is a nurse, right?", clock.now()))
    await windows.add(CHANNEL, _said(3, 8, "kim", "a nurse came by today", clock.now()))
    await windows.add(CHANNEL, _said(4, 7, "judy", "Bot forget that I am a nurse", clock.now()))

    await windows.drop_restating(CHANNEL_GUILD, 7, "judy is a nurse", ["judy"])

    turns = [t.content for t in (await windows.view(CHANNEL)).turns]
    assert turns == ["Night shifts!", "a nurse came by today"]  # not about judy: kept
