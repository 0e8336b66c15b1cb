"""docs/design.md's house is drawn by the house bench (issue 44: the hand-typed drawing went
stale): the page is what the stored figures render, and the stored figures are what the imports
say now (re-run `python -m bench --only house --write-docs` after moving an import)."""

from __future__ import annotations

import io
from typing import Any

from bench import house, house_drawing, house_history
from bench.docs import load
from bench.report import Reporter


def _structure(figures: list[dict[str, Any]]) -> dict[str, object]:
    figures = [f for f in figures if f["bench"] == "house"]
    totals = {f["metric"]: f["value"] for f in figures if "room" not in f and "module" not in f}
    floors = {f["room"]: f["floor"] for f in figures if f["metric"] == "room_lines"}
    return {**totals, "floors_of_rooms": floors}


def test_the_design_page_draws_the_stored_house() -> None:
    run, figures = load()["house"]
    assert house_drawing.current() == house_drawing.render(run, figures)


def test_the_stored_house_is_what_the_imports_say_now() -> None:
    _run, stored = load()["house"]
    now = Reporter(out=io.StringIO())
    totals = house.run(now)
    assert _structure(now.figures) == _structure(stored), (
        "the imports moved: run `python -m bench --only house --write-docs`"
    )
    assert totals["arrows_up"] == 0 and totals["rooms_on_circles"] == 0


def test_a_circle_or_an_arrow_up_is_counted() -> None:
    rooms = ["a/", "b/", "c/"]
    floor, circled = house.floors(rooms, {("a/", "b/"), ("b/", "c/")})
    assert (floor, circled) == ({"c/": 1, "b/": 2, "a/": 3}, 0)
    floor, circled = house.floors(rooms, {("a/", "b/"), ("b/", "a/"), ("c/", "a/")})
    assert circled == 3 and floor == {}


def test_a_circle_is_named_by_its_rooms() -> None:
    rooms = ["a/", "b/", "c/", "d/"]
    arrows = {("a/", "b/"), ("b/", "c/"), ("c/", "a/"), ("d/", "a/")}
    assert house_history.circles(rooms, arrows) == [["a/", "b/", "c/"]]
    assert house_history.circles(rooms, {("a/", "b/"), ("d/", "c/")}) == []
