"""The offline provider's episode summaries: extractive, from the episode's own lines.

Title: the opening line with something to say; summary: who took part and their most
on-topic lines; open loops: questions nobody else answered after, and plans ("let's", "will").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from memory.core.text import truncate
from memory.language import content_tokens, makes_plan


def _loops(lines: list[dict[str, Any]]) -> list[str]:
    loops: list[str] = []
    for index, line in enumerate(lines):
        text = str(line["text"]).strip()
        answered = any(later["author"] != line["author"] for later in lines[index + 1 :])
        if (text.endswith("?") and not answered) or makes_plan(text):
            loops.append(truncate(f"{line['author']}: {text}", 120))
    return loops[-3:]


def summarize_episode(episode: Mapping[str, Any], max_chars: int) -> dict[str, Any]:
    lines = [line for line in episode["lines"] if str(line["text"]).strip()]
    if not lines:
        return {"id": episode["id"], "title": "", "summary": "", "open_loops": []}
    counts: Counter[str] = Counter()
    tokens = [content_tokens(str(line["text"])) for line in lines]
    for found in tokens:
        counts.update(found)
    talking = (line for line, found in zip(lines, tokens, strict=True) if len(found) >= 2)
    opening = next(talking, lines[0])
    title = truncate(str(opening["text"]).strip(), 60)
    # Each text once: "ok talk later" said four times is not four lines of summary.
    first_of = {
        str(line["text"]).strip().lower(): i for i, line in reversed(list(enumerate(lines)))
    }
    ranked = sorted(
        set(first_of.values()),
        key=lambda i: (-sum(counts[t] for t in tokens[i] if counts[t] > 1), i),
    )
    authors = list(dict.fromkeys(str(line["author"]) for line in lines))
    summary = ", ".join(authors) + " talked."
    for index in sorted(ranked[:4]):
        candidate = f"{summary} {lines[index]['author']}: {str(lines[index]['text']).strip()}"
        if len(candidate) > max_chars:
            break
        summary = candidate
    return {
        "id": episode["id"],
        "title": title,
        "summary": truncate(summary, max_chars),
        "open_loops": _loops(lines),
    }


def episodes_answer(inputs: Mapping[str, Any]) -> dict[str, Any]:
    max_chars = int(inputs["max_chars"])
    return {"episodes": [summarize_episode(item, max_chars) for item in inputs["episodes"]]}
