"""docs/design.md and docs/llm.md quote the learner's precision and recall as its scoring gives
them today (issue 44: its 0.88 and llm.md's "1.00 on 124 lines" had gone stale): changing the
learner and not the paragraph fails here."""

from __future__ import annotations

from pathlib import Path

from tests.memory.language.learner_lines import labelled_lines
from tests.memory.language.test_learner import _score, _tsv

DOCS = Path(__file__).resolve().parents[3] / "docs"
DESIGN = DOCS / "design.md"


def _one_line(text: str) -> str:
    return " ".join(text.split())


async def test_design_quotes_the_learners_figures_as_it_stands() -> None:
    hand, later, made = _tsv(), _tsv("learned_facts_heldout.tsv"), labelled_lines()
    everything = hand + later + made
    precision, recall, _, _ = await _score(everything)
    later_precision, later_recall, _, _ = await _score(later)
    design = _one_line(DESIGN.read_text(encoding="utf-8"))
    assert (
        f"Measured on {len(everything)} labelled lines (`tests/memory/language/`): "
        f"{len(hand)} hand-written, {len(later)} written after the learner was tuned"
    ) in design
    assert f"{len(made)} from templates" in design
    assert f"All: precision {precision:.2f}, recall {recall:.2f};" in design
    assert f"and {later_precision:.3f} / {later_recall:.2f} as the learner stands" in design
    llm = _one_line((DOCS / "llm.md").read_text(encoding="utf-8"))
    said = f"precision {precision:.2f} and recall {recall:.2f} on {len(everything)} labelled"
    assert f"{said} chat lines" in llm
