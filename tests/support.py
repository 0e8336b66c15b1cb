"""What every test shares: waiting for a condition, and one factory per kind of row.

Tests wait with `eventually()` (poll with a deadline) or an asyncio.Event, never `sleep(n)` and
hope; rows are built by `chat_message()` and `member()` so every test makes them the same way.
"""

from __future__ import annotations

import asyncio
import html
import inspect
import itertools
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bench.needs import in_ci, missing_line
from memory.core.models import ChatMessage, Member
from memory.recall import RecallHit

DEFAULT_TIME = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count(5_000_000)


async def eventually(
    probe: Callable[[], Any | Awaitable[Any]],
    timeout: float = 5.0,  # noqa: ASYNC109 - a deadline is the point of this helper
    interval: float = 0.01,
) -> Any:
    """Poll `probe` (a function or an async function) until it returns something truthy
    (returned), else raise
    TimeoutError. Polling is deliberate where there is no event to await (rows, REST calls)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = probe()
        if inspect.iscoroutine(found):  # an async probe; a Task or Future is a value here
            found = await found
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)


async def fetch_value(dsn: str, query: str) -> int:
    """One integer from `query` on a connection of its own (outside any pool under test)."""
    connection = await asyncpg.connect(dsn)
    try:
        value: int = await connection.fetchval(query)
        return value
    finally:
        await connection.close()


def said_order(hit: RecallHit) -> int:
    """A found message's place in the order said (its id: the tests store messages only)."""
    assert hit.message_id is not None, f"{hit.text!r} is not a message"
    return hit.message_id


def chat_message(
    message_id: int | None = None,
    content: str = "hi",
    *,
    guild_id: int = 1,
    channel_id: int = 2,
    author_id: int = 3,
    created_at: datetime = DEFAULT_TIME,
    **extra: Any,
) -> ChatMessage:
    """A stored guild message; any other ChatMessage field may be given (mention_ids, ...)."""
    return ChatMessage(
        message_id=next(_ids) if message_id is None else message_id,
        guild_id=guild_id,
        channel_id=channel_id,
        author_id=author_id,
        content=content,
        created_at=created_at,
        **extra,
    )


def days_apart(
    said: Sequence[tuple[int, str]], *, guild_id: int, channel_id: int, last: datetime
) -> list[ChatMessage]:
    """`said` (author, text) as messages one day apart in one channel, the last on `last`:
    each its own exchange (nothing is said around it)."""
    return [
        chat_message(
            None,
            text,
            guild_id=guild_id,
            channel_id=channel_id,
            author_id=author,
            created_at=last - timedelta(days=len(said) - 1 - n),
        )
        for n, (author, text) in enumerate(said)
    ]


def errands(count: int, authors: Sequence[int]) -> list[tuple[int, str]]:
    """`count` lines of common words by `authors` in turn: a guild's everyday chat, which makes
    a test's asked words rare (and so weighty) as in a real guild."""
    return [
        (authors[n % len(authors)], f"errand {n}: groceries, laundry and the bus")
        for n in range(count)
    ]


def member(guild_id: int, user_id: int, username: str | None = None, **extra: Any) -> Member:
    """A directory entry; username defaults to `user<id>`."""
    return Member(guild_id, user_id, username=username or f"user{user_id}", **extra)


def require(present: bool, what: str) -> None:
    """In a test or fixture: a missing `what` fails the test with one line under CI=true
    (bench/needs.py), and skips it with one line elsewhere."""
    if present:
        return
    if in_ci():
        pytest.fail(missing_line(what), pytrace=False)
    pytest.skip(missing_line(what))


def needs(present: bool, what: str) -> pytest.MarkDecorator:
    """A mark (a module's `pytestmark`, a test's decorator): `require(present, what)` before
    the test runs (tests/conftest.py's `pytest_runtest_setup`)."""
    return pytest.mark.needs(present=present, what=what)


def needs_file(path: Path, what: str) -> pytest.MarkDecorator:
    """`needs` for a file a test reads (a dataset in ../shared/data, say)."""
    return needs(path.exists(), f"{what} ({path})")


_RECALLED_HIT = re.compile(r"<recalled\b[^>]*>(.*?)</recalled>", re.S)
_RECALLED_LINE = re.compile(r"^(?P<name>[^\[\]:]+?)(?: \[(?P<notes>[^\]]*)\])?: (?P<text>.*)$")


@dataclass(frozen=True)
class RecalledLine:
    """One line of a `<recalled>` hit in a reply prompt, unescaped."""

    speaker: str
    text: str
    found: bool  # the line the search matched (the only line of a hit is its match)
    notes: tuple[str, ...] = ()


def recalled_lines(prompt: str) -> list[RecalledLine]:
    """Every line of every recalled hit of `prompt`, in order (memory/replies/_recalled.py's
    transcript form: `name [notes]: text`)."""
    lines = []
    for body in _RECALLED_HIT.findall(prompt):
        raw = body.strip().splitlines()
        said = [match for line in raw if (match := _RECALLED_LINE.match(line))]
        assert len(said) == len(raw), f"not a transcript: {body!r}"
        for match in said:
            notes = tuple(n.strip() for n in (match["notes"] or "").split(";") if n.strip())
            found = "found" in notes or len(said) == 1
            lines.append(RecalledLine(match["name"], html.unescape(match["text"]), found, notes))
    return lines
