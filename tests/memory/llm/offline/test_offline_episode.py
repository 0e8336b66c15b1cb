"""The offline provider's extractive episode summary quotes each line once."""

from __future__ import annotations

from memory.llm.offline._episode import summarize_episode


def test_a_line_said_again_and_again_is_quoted_once() -> None:
    said = [
        ("ann", "ok talk later"),
        ("bo", "ok talk later"),
        ("ann", "my hamster is called Biscuit, she is such a goofball"),
        ("bo", "ok talk later"),
        ("ann", "ok talk later"),
    ]
    episode = {"id": 1, "lines": [{"author": a, "text": t} for a, t in said]}
    summary = summarize_episode(episode, 400)["summary"]
    assert summary.count("ok talk later") == 1
    assert "Biscuit" in summary
