"""Splitting replies for Discord's 2000-character limit."""

from __future__ import annotations

import pytest

from memory.core.split import split_message


def test_short_text_is_one_part() -> None:
    assert split_message("hello") == ["hello"]
    assert split_message("   ") == []


def test_breaks_on_lines_first() -> None:
    text = ("a" * 1500) + "\n" + ("b" * 1000)
    assert split_message(text) == ["a" * 1500, "b" * 1000]


def test_breaks_on_sentences_when_no_line_break() -> None:
    sentence = "This is a sentence of moderate length. "
    text = sentence * 80  # ~3100 characters
    parts = split_message(text)
    assert len(parts) == 2
    assert all(len(part) <= 2000 for part in parts)
    assert parts[0].endswith(".")
    assert " ".join(parts) == text.strip()


def test_unbreakable_word_is_cut_hard() -> None:
    parts = split_message("x" * 4500)
    assert [len(part) for part in parts] == [2000, 2000, 500]


@pytest.mark.parametrize("limit", [50, 100, 2000])
def test_no_words_are_lost(limit: int) -> None:
    words = [f"word{n}" for n in range(1000)]
    text = " ".join(words)
    parts = split_message(text, limit)
    assert all(len(part) <= limit for part in parts)
    assert " ".join(parts).split() == words


def test_reply_parts_are_capped_with_a_marker_and_never_cut_a_word() -> None:
    from memory.core.split import CUT_MARKER, MAX_PARTS, reply_parts

    text = " ".join(f"word{n:06d}" for n in range(30_000))
    parts = reply_parts(text)
    assert len(parts) == MAX_PARTS and all(len(part) <= 2000 for part in parts)
    assert parts[-1].endswith(CUT_MARKER)
    body = parts[-1][: -len(CUT_MARKER)]
    assert body.split()[-1] in text.split()  # the last word is whole
    assert reply_parts("short answer") == ["short answer"]
