"""The reply prompt's token budget: what the fixed parts leave is shared out once, the window
gets what memories, recall and the episode did not use (never more than its cap), and a
rendered prompt over the total is measured, not guessed."""

from __future__ import annotations

from memory.replies._budget import WINDOW_MARGIN, PromptBudget


def test_the_shares_come_from_what_the_fixed_parts_leave() -> None:
    budget = PromptBudget(total=4000, window_cap=2000).with_fixed("x" * 4000)  # ~1,000 tokens
    assert budget.remaining == 4000 - budget.fixed
    assert (budget.members, budget.recalled, budget.episode) == (
        budget.remaining * 3 // 8,
        budget.remaining // 2,
        budget.remaining // 8,
    )
    assert budget.members + budget.recalled + budget.episode <= budget.remaining


def test_the_window_gets_what_the_rest_left_within_its_cap() -> None:
    budget = PromptBudget(total=4000, window_cap=500)
    assert budget.window(0) == 500
    assert budget.window(3700) == 4000 - 3700 - WINDOW_MARGIN
    assert budget.window(4000) == 0
    roomy = PromptBudget(total=4000, window_cap=10_000)
    assert roomy.window(1000) == 4000 - 1000 - WINDOW_MARGIN


def test_fixed_parts_larger_than_the_budget_leave_nothing_and_are_over() -> None:
    budget = PromptBudget(total=100, window_cap=50).with_fixed("word " * 400)
    assert budget.remaining == budget.members == budget.window(0) == 0
    assert budget.over("word " * 400) > 0 and budget.over("short") == 0
