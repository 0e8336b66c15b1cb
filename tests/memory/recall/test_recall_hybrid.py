"""Reciprocal rank fusion of full-text and semantic recall results."""

from __future__ import annotations

from memory.recall._hybrid import fuse


def test_a_row_both_searches_found_ranks_first() -> None:
    words = ["gym-opening", "bouldering", "pizza"]
    meaning = ["bouldering", "crag-trip"]
    assert fuse([words, meaning])[:1] == ["bouldering"]


def test_rows_only_one_search_found_keep_that_search_order() -> None:
    fused = fuse([["a", "b"], ["c", "d"]])
    assert fused.index("a") < fused.index("b") and fused.index("c") < fused.index("d")
    assert sorted(fused) == ["a", "b", "c", "d"]


def test_one_ranking_is_returned_unchanged() -> None:
    assert fuse([["x", "y", "z"]]) == ["x", "y", "z"]
    assert fuse([[], []]) == []
