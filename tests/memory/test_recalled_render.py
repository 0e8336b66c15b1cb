"""The `<recalled>` lines of a reply prompt: a hit the members' memories already hold is not
repeated, unless it says which day its "yesterday" was (the memories do not)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.recall import RecallHit
from memory.replies._recalled import render_recalled

AT = datetime(2023, 6, 13, 9, 50, tzinfo=UTC)


def _hit(text: str, dates: tuple[str, ...] = ()) -> RecallHit:
    return RecallHit("message", AT, "2023-06-13", 7, "Dana", text, 1.0, 5, 9, dates=dates)


def test_a_hit_the_memories_hold_is_left_out_unless_it_resolves_a_date() -> None:
    memories = [
        'Jun 13: Dana said: "yesterday I went to the aquarium"; "my gecko is called Pixel".'
    ]
    hits = [
        _hit("my gecko is called Pixel"),
        _hit("yesterday I went to the aquarium", ("yesterday = Mon 2023-06-12",)),
    ]

    xml, lines = render_recalled(hits, 1, budget=1000, known=memories)

    assert [line.text for _, line in lines] == ["yesterday I went to the aquarium"]
    assert 'dates="yesterday = Mon 2023-06-12"' in str(xml)
