"""The README's headline figures are quoted from what the benches wrote into docs/figures (issue
44): re-running a bench with --write-docs and not the sentence that quotes it fails here, so no
figure typed by hand goes stale."""

from __future__ import annotations

from pathlib import Path

from bench.docs import load
from tests.bench.figure_support import says, value_of

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _figures(bench: str, metric: str, **params: object) -> list[float]:
    _run, figures = load()[bench]
    return [
        float(item["value"])
        for item in figures
        if item["metric"] == metric and all(item.get(k) == v for k, v in params.items())
    ]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_token_economy_is_quoted_from_the_economy_bench() -> None:
    (ratio,) = _figures("economy", "hierarchy_to_raw_token_ratio", request_rate=0.05)
    assert f"({ratio:.2f}x) at 5% of messages addressed" in _one_line(README)


def test_search_on_a_million_messages_is_said_as_the_recall_bench_found_it() -> None:
    p99 = _figures("recall", "search_p99_ms", channels=8)  # the big guild, not the busy one
    assert p99
    (messages,) = {
        item["guild_messages"]
        for item in load()["recall"][1]
        if "guild_messages" in item and item.get("channels") == 8
    }
    assert messages >= 1_000_000
    if max(p99) < 100:
        assert "search on 1M messages stays under 100 ms p99" in _one_line(README)
    else:
        assert "The 100 ms p99 search target on 1M messages is not met" in _one_line(README)


def test_locomo_dev_is_quoted_first_and_as_the_bench_wrote_it() -> None:
    def share(category: str) -> str:
        (value,) = _figures(
            "locomo", "evidence_all_in_memories", category=category, embedder="local"
        )
        return f"{value:.0%}"

    (tokens,) = _figures("locomo", "prompt_tokens_p50", category="all", embedder="local")
    text = _one_line(README)
    assert (
        f"memories for {share('all')} of questions ({share('single_hop')} of one-fact questions,"
        f" {share('multi_hop')} of those whose answer is spread over several turns) at"
        f" ~{round(tokens, -2):,.0f} tokens p50"
    ) in text
    assert text.index("LoCoMo") < text.index("template bench")


def test_design_says_what_the_local_embedder_adds_on_locomo() -> None:
    def share(category: str, embedder: str) -> str:
        figure = value_of(
            "locomo", "evidence_all_in_memories", category=category, embedder=embedder
        )
        return f"{figure:.0%}"

    says(
        f"for {share('all', 'local')} of questions with them and {share('all', 'none')} without,"
        f" for {share('multi_hop', 'local')} and {share('multi_hop', 'none')} of the multi-hop"
        " ones",
        "docs/design.md",
    )
