"""`python -m bench --write-docs`: docs/performance.md's tables come from the benches' stored
figures, a partial run changes only what it measured, and the page in the repository is what
its stored figures render (nobody edits the tables by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import docs
from bench.__main__ import BENCHES, ON_REQUEST
from bench.report import figure
from bench.targets import TARGETS

_PAGE = f"# Performance\n\nintro\n\n{docs.START}\nold tables\n{docs.END}\n\n## Changelog\n"


def _run(folder: Path, doc: Path, figures: list[dict[str, Any]], benches: list[str]) -> str:
    docs.write_docs(figures, benches, TARGETS, BENCHES, folder=folder, doc=doc)
    return doc.read_text(encoding="utf-8")


def test_a_run_writes_its_tables_and_a_later_partial_run_keeps_the_rest(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(_PAGE, encoding="utf-8")
    first = [
        figure("ingest", "messages_per_s", 31057.0, "msg/s", messages=50000),
        figure("ingest", "loop_lag_p99_ms", 7.5, "ms", rate=1000.0),
        figure("quality", "evidence_in_prompt", 0.93, "fraction", kind="all", split="dev"),
    ]
    page = _run(tmp_path / "figures", doc, first, ["ingest", "quality"])
    assert page.startswith("# Performance\n\nintro\n\n") and page.endswith("## Changelog\n")
    assert "old tables" not in page
    assert "| ingest | messages_per_s |  | 31,057 | ≥ 10,000 | yes |" in page
    assert "| ingest | loop_lag_p99_ms |  | 7.5 | ≤ 5 | **no** |" in page
    assert "| reply_e2e | reply_e2e_p99_ms | memories=cold | not measured |" in page

    second = [figure("ingest", "messages_per_s", 12000.0, "msg/s", messages=50000)]
    page = _run(tmp_path / "figures", doc, second, ["ingest"])
    assert "| ingest | messages_per_s |  | 12,000 |" in page
    # A bench's figures are those of its last run: the lag was not measured again.
    assert "| ingest | loop_lag_p99_ms |  | not measured |" in page
    assert "evidence_in_prompt | kind=all, split=dev | 0.93 |" in page, "quality kept"


def test_the_page_is_what_its_stored_figures_render() -> None:
    page = docs.DOC.read_text(encoding="utf-8")
    generated = page[page.index(docs.START) : page.index(docs.END) + len(docs.END)]
    assert generated == docs.render(docs.load(), TARGETS, (*BENCHES, *ON_REQUEST))
