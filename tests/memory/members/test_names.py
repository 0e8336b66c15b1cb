"""Names in free text and mention rendering."""

from __future__ import annotations

from memory.core.models import Member
from memory.members._names import NameIndex, mentioned_ids, render_mentions

G = 1
ANNA, ANNA_MARIA, BO = 100_000_000_000_000_001, 100_000_000_000_000_002, 100_000_000_000_000_003


def test_named_members_are_found_as_whole_words_longest_first() -> None:
    index = NameIndex(
        [
            Member(G, ANNA, username="anna"),
            Member(G, ANNA_MARIA, nickname="Anna Maria"),
            Member(G, BO, username="bo"),  # too short to match in free text
        ]
    )
    assert index.named_in("Anna Maria and anna went out; Annabelle stayed, bo too") == [
        ANNA_MARIA,
        ANNA,
    ]


def test_ambiguous_names_are_not_guessed() -> None:
    index = NameIndex([Member(G, 1, nickname="Sam"), Member(G, 2, username="sam")])
    assert index.named_in("where is sam?") == []


def test_mentions_render_as_names_and_unknown_ids_stay() -> None:
    text = f"hi <@{ANNA}> and <@!{BO}> and <@{ANNA_MARIA}>"
    assert mentioned_ids(text) == [ANNA, BO, ANNA_MARIA]
    assert (
        render_mentions(text, {ANNA: "anna", BO: "bo"}) == f"hi @anna and @bo and <@{ANNA_MARIA}>"
    )
