"""The live model's server caps the completions its tool format asks with no limit
(bench/live_capped.py): a rambling tool answer cannot hold the server for minutes."""

from __future__ import annotations

from typing import Any

from bench.live_capped import UNBOUNDED_CAP, capped


class _Model:
    """Stands in for llama_cpp.Llama: records the max_tokens each completion was asked with."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def create_completion(self, prompt: str, max_tokens: int | None = 16, **_: Any) -> str:
        self.asked.append(max_tokens)
        return prompt


def test_a_completion_asked_without_a_limit_gets_the_cap() -> None:
    model = _Model()
    create = capped(_Model.create_completion)
    create(model, prompt="functions.search:\n", max_tokens=None)
    assert model.asked == [UNBOUNDED_CAP]


def test_a_limit_the_request_set_or_the_default_is_left_alone() -> None:
    model = _Model()
    create = capped(_Model.create_completion, cap=5)
    create(model, prompt="hi", max_tokens=700)
    create(model, prompt="hi")
    assert model.asked == [700, 16]


def test_the_cap_sits_above_a_replys_budget_the_one_request_sent_with_tools() -> None:
    from memory.llm.tasks._calls import OUTPUT_TOKENS_FIXED, output_budget

    assert output_budget("reply") < UNBOUNDED_CAP < 8192
    assert max(OUTPUT_TOKENS_FIXED.values()) < UNBOUNDED_CAP


def test_the_docs_say_the_cap_the_code_has() -> None:
    from pathlib import Path

    text = " ".join((Path(__file__).parents[2] / "docs" / "llm.md").read_text().split())
    assert f"caps a completion asked with no limit at {UNBOUNDED_CAP:,} tokens" in text
