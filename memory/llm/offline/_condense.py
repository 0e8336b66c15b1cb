"""Condensing summaries that are already written: several days' summaries rolled into one
history within a cap (`condense`, `narrative_units`), and a window's turns folded into its
summary (`fold_turns`). The offline provider quotes (`_extractive.py`); these choose which of
its quoted sentences stay when days pile up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from memory.core.text import end_sentence, fit, split_sentences, truncate
from memory.language import content_tokens, jaccard, restates_any
from memory.llm.offline._extractive import clean_chat, quoted
from memory.llm.offline._scoring import informativeness


def condense(
    texts: Sequence[tuple[str | None, str]],
    *,
    max_chars: int,
    forgotten: Iterable[str] = (),
    names: Sequence[str] = (),
    every_label: bool = False,
) -> str:
    """Most informative distinct sentences of several summaries, in order, within the cap.

    `texts` pairs an optional label (a date) with a summary; labels prefix their sentences.
    `every_label`: each label's best sentence is chosen first, the last label first (a
    narrative rolled forward must take in its newest days, not keep only the denser old ones).
    """
    forgotten = list(forgotten)
    units: list[tuple[int, str | None, str, float]] = []
    seen: list[set[str]] = []
    for label, text in texts:
        for sentence in split_sentences(text or ""):
            if restates_any(sentence, forgotten, names=names):
                continue
            tokens = content_tokens(sentence, ignore=names)
            if any(jaccard(tokens, earlier) >= 0.7 for earlier in seen):
                continue
            seen.append(tokens)
            units.append((len(units), label, end_sentence(sentence), _sentence_score(sentence)))
    chosen: list[tuple[int, str | None, str, float]] = []
    first: list[tuple[int, str | None, str, float]] = []
    if every_label:
        best: dict[str | None, tuple[int, str | None, str, float]] = {}
        for unit in units:
            if unit[1] not in best or unit[3] > best[unit[1]][3]:
                best[unit[1]] = unit
        first = sorted(best.values(), key=lambda u: -u[0])
    for unit in [*first, *sorted(units, key=lambda u: (-u[3], u[0]))]:
        if unit in chosen:
            continue
        trial = sorted([*chosen, unit])
        if len(_render_labelled(trial)) <= max_chars:
            chosen = trial
    if not chosen and units:
        top = min(units, key=lambda u: (-u[3], u[0]))
        return truncate(_render_labelled([top]), max_chars)
    return _render_labelled(chosen)


def _sentence_score(sentence: str) -> float:
    quoted = re.findall(r'"([^"]*)"', sentence)
    return informativeness(" ".join(quoted)) if quoted else informativeness(sentence)


def _render_labelled(units: list[tuple[int, str | None, str, float]]) -> str:
    parts: list[str] = []
    last_label: str | None = None
    for _, label, sentence, _ in units:
        if label and label != last_label:
            parts.append(f"{label}: {sentence}")
        else:
            parts.append(sentence)
        last_label = label
    return " ".join(parts)


_LABEL = re.compile(r"^([A-Z][a-z]{2}) (\d{1,2}): (.+)$", re.S)


def narrative_units(text: str, *, until: str, start: str) -> list[tuple[str | None, str]]:
    """An earlier narrative (ending on `until`) as (day label, sentence) units, without the
    sentences of days before `start`: what it still contributes once rolled forward."""
    try:
        end, first = date.fromisoformat(until), date.fromisoformat(start)
    except ValueError:
        return [(None, text)]
    units: list[tuple[str | None, str]] = []
    label: str | None = None
    dated: date | None = None
    for sentence in split_sentences(text):
        match = _LABEL.match(sentence)
        if match:
            label, sentence = f"{match.group(1)} {match.group(2)}", match.group(3)
            dated = _label_date(label, end)
        if dated is not None and dated < first:
            continue  # the day fell out of the window
        units.append((label, sentence))
    return units


def _label_date(label: str, not_after: date) -> date | None:
    """ "Mar 3" -> the latest such date on or before `not_after`."""
    for year in (not_after.year, not_after.year - 1):
        try:
            parsed = datetime.strptime(f"{label} {year}", "%b %d %Y").date()
        except ValueError:
            return None
        if parsed <= not_after:
            return parsed
    return None


def day_label(day: str) -> str:
    """ "2024-05-01" -> "May 1" (dates in narratives are read by people)."""
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        return day
    return f"{parsed:%b} {parsed.day}"


def fold_turns(summary: str, turns: Sequence[dict[str, object]], *, max_chars: int) -> str:
    """Running channel summary: keep the newest material, who said what, within the cap."""
    pieces = split_sentences(summary)
    for turn in turns:
        text = clean_chat(str(turn.get("content") or ""))
        if text and informativeness(text) > 0:
            pieces.append(f"{turn.get('author_name')}: {quoted(text)}.")
    # Newest first when trimming: the recent conversation matters most for the next reply.
    kept: list[str] = []
    used = 0
    for piece in reversed(pieces):
        extra = len(piece) + (1 if kept else 0)
        if used + extra > max_chars:
            continue
        kept.append(piece)
        used += extra
    return fit(reversed(kept), max_chars)
