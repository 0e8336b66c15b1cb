"""The event bus: handlers run in subscription order, each awaited, and one that fails is
logged while the others and the publisher go on; subscriptions live in memory/wiring only."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

from memory.core.events import EventBus, FactLearned, GuildChanged

ROOT = Path(__file__).resolve().parents[3]


async def test_handlers_run_in_order_past_a_failing_one(caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []
    bus = EventBus()

    async def first(event: FactLearned) -> None:
        heard.append(f"first {event.user_id}")

    def broken(event: FactLearned) -> None:
        raise RuntimeError("broken cache")

    bus.subscribe(FactLearned, first)
    bus.subscribe(FactLearned, broken)
    bus.subscribe(FactLearned, lambda event: heard.append(f"last {event.user_id}"))
    bus.subscribe(GuildChanged, lambda event: heard.append("not this one"))
    with caplog.at_level(logging.ERROR, logger="memory.core.events"):
        await bus.publish(FactLearned(1, 7))  # does not raise
    assert heard == ["first 7", "last 7"]
    assert "FactLearned" in caplog.text and "broken cache" in caplog.text


async def test_an_event_nobody_hears_is_fine() -> None:
    await EventBus().publish(GuildChanged(1))


def test_only_the_wiring_subscribes() -> None:
    """'Who hears X?' is one search: no module outside memory/wiring subscribes a handler."""
    outside = []
    for path in sorted((ROOT / "memory").rglob("*.py")):
        if path.parent.name == "wiring" or path.name == "events.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "subscribe"
            ):
                outside.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert outside == []
