"""The offline summariser's line index finds a member's lines without scanning the day once
per member, and never misses one the full scan would find."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.llm.offline._extractive import prepare_day, summarize_member_day
from memory.llm.offline._line_index import LineIndex

NAMES = ["alice", "Omar Wren", "kim_3", "İpek", "Σοφία", "@dj", "🎉🎉", "Dr. Who", "o'neil"]
SAID = [
    "@alice the bakery job is yours, congrats",
    "I saw IPEK and ipek at the concert",
    "σοφία wrote the best song tonight",
    "omar wren! fixed the server again",
    "kim_3: your cat knocked the lamp over",
    "🎉🎉 party at the lighthouse",
    "dr. who is coming to the quiz",
    "O'Neil moved to Lyon last week",
    "malice is not a name, kimchi is food",
]


def _day(texts: list[str], authors: list[int]) -> list[dict[str, object]]:
    return [
        {
            "message_id": n,
            "author_id": authors[n % len(authors)],
            "author_name": f"member {authors[n % len(authors)]}",
            "content": text,
            "reply_to_id": n - 1 if n % 3 == 2 else None,
        }
        for n, text in enumerate(texts)
    ]


def _both(messages: list[dict[str, object]], user_id: int, name: str) -> tuple[str, str]:
    lines = prepare_day(messages)
    kwargs: dict[str, Any] = {"user_id": user_id, "name": name, "aliases": [], "max_chars": 2000}
    return (
        summarize_member_day(lines, **kwargs),
        summarize_member_day(lines, index=LineIndex.of(lines), **kwargs),
    )


def test_indexed_notes_match_the_full_scan_for_odd_names() -> None:
    messages = _day(SAID * 2, authors=list(range(100, 100 + len(NAMES))))
    for user_id, name in enumerate(NAMES, 100):
        full, indexed = _both(messages, user_id, name)
        assert indexed == full, name
    # and the index does find what the names say, whatever the case
    assert "IPEK" in _both(messages, 999, "İpek")[1]
    assert 'said about Σοφία: "wrote the best song' in _both(messages, 999, "Σοφία")[1]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=12),
    name=st.text(min_size=1, max_size=12),
)
def test_the_index_never_misses_a_line_the_full_scan_finds(texts: list[str], name: str) -> None:
    messages = _day([f"{text} {name} {text}" for text in texts], authors=[1, 2, 3])
    for user_id in (1, 7):
        full, indexed = _both(messages, user_id, name)
        assert indexed == full
