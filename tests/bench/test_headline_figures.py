"""The README's headline figures are quoted from what the benches wrote into docs/figures (issue
44): re-running a bench with --write-docs and not the sentence that quotes it fails here, so no
figure typed by hand goes stale."""

from __future__ import annotations

from pathlib import Path

from bench.docs import load

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


def test_search_on_a_million_messages_is_quoted_from_the_recall_bench() -> None:
    p99 = _figures("recall", "search_p99_ms")
    assert p99 and max(p99) < 100
    (messages,) = {
        item["guild_messages"] for item in load()["recall"][1] if "guild_messages" in item
    }
    assert messages >= 1_000_000
    assert "search on 1M messages stays under 100 ms p99" in _one_line(README)


def test_the_reply_prompt_size_is_quoted_from_the_quality_bench() -> None:
    sizes = {round(v, -2) for v in _figures("quality", "prompt_tokens_p50", kind="all")}
    assert len(sizes) == 1, sizes  # tuned and held-out chats round to the same hundred
    assert f"at ~{int(sizes.pop()):,} tokens p50" in _one_line(README)
