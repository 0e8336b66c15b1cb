"""The limits docs/operations.md, docs/llm.md and docs/usage.md state are the code's (issue 44:
a number typed into prose goes stale). Settings and constants that sit in design.md are held by
tests/test_doc_settings.py; measurements by tests/bench/test_doc_figures.py."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

from db import day_locks
from db import recall as db_recall
from memory.context import _merge
from memory.core import split
from memory.core.tokens import LIMIT_CHARS_PER_TOKEN
from memory.episodes import _digest, _segment, _summaries
from memory.jobs import _worker
from memory.llm.embeddings import EMBEDDING_DIMENSIONS, _embedder, _local
from memory.llm.tasks import _calls
from memory.members._names import NameIndexCache
from memory.recall import _semantic
from memory.replies._window import ConversationWindows
from tests.doc_support import ROOT
from tests.doc_support import doc as _doc
from tests.doc_support import number as _n
from tests.doc_support import setting as _s

_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _default(function: Any, parameter: str) -> Any:
    return inspect.signature(function).parameters[parameter].default


def _held(doc: str, sentences: list[str]) -> None:
    text = _doc(doc)
    missing = [sentence for sentence in sentences if sentence not in text]
    assert not missing, f"{doc} should say: {missing}"


def test_each_limit_of_operations_is_its_settings_default() -> None:
    """A row's first numbers are the defaults of the settings it names, in order."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = text[text.index("## Limits") :].split("\n\n")[1]
    rows = 0
    for line in table.splitlines()[2:]:
        _what, default, names = (cell.strip() for cell in line.strip("|").split(" | "))
        settings = re.findall(r"`([A-Z_]+)`", names)
        numbers = [float(n.replace(",", "")) for n in _NUMBER.findall(default)]
        for name, number in zip(settings, numbers, strict=False):
            assert number == float(_s(name)), f"operations.md Limits: {name} {number:g}"
            rows += 1
    assert rows >= 6
    busy = f"{_n(_s('REPLY_BUSY_BUDGET_SECONDS'))} s while more than {_s('REPLY_BUSY_REPLIES')}"
    _held(
        "docs/operations.md",
        [
            f"| parts of one reply | {split.MAX_PARTS} Discord messages,",
            f"1 s (then the fallback); {busy} replies compose at once |",
            f"| wait for another process closing the same guild-day |"
            f" {_n(_default(day_locks.guild_day_lock, 'wait_seconds'))} s (then the fallback) |",
            f"by default a reply waits at most the {_n(_s('REPLY_MEMORY_BUDGET_SECONDS'))} s"
            f" memory budget plus {_n(_s('LLM_INTERACTIVE_TIMEOUT_SECONDS'))} s",
            f"at most {_default(ConversationWindows, 'max_channels'):,} are held; name indexes at"
            f" most {_default(NameIndexCache, 'max_guilds'):,} guilds",
            f"at most {split.MAX_PARTS} Discord messages, the last cut at a word",
        ],
    )


def test_llm_gives_each_purposes_output_budget() -> None:
    fixed = _calls.OUTPUT_TOKENS_FIXED
    text = _doc("docs/llm.md")
    rows = re.findall(r"\| ((?:`[a-z_]+`(?:, )?)+) \| (\d+)", text)
    said = {name: int(tokens) for names, tokens in rows for name in re.findall(r"`(\w+)`", names)}
    assert said == fixed, f"docs/llm.md's output budgets should be {fixed}"
    per_item = _calls.output_budget("route", 300) - _calls.output_budget("route") - 300 // 3
    assert f"(`max_chars / {LIMIT_CHARS_PER_TOKEN} + {per_item}` tokens per item)" in text


def test_design_says_the_job_backoff_and_the_ranking_as_the_code_has_them() -> None:
    worker = _worker.WorkerConfig()
    source = Path(_worker.__file__).read_text(encoding="utf-8")
    (multiplier,) = re.findall(r"backoff_multiplier=([\d.]+)", source)
    hours = worker.retry_max_delay.total_seconds() / 3600
    ranking = Path(db_recall.__file__).read_text(encoding="utf-8")
    ((k1_plus_1, k1, one_minus_b, b),) = re.findall(
        r"\* ([\d.]+) / \(1 \+ ([\d.]+) \* \(([\d.]+) \+ ([\d.]+) \*", ranking
    )
    assert float(k1_plus_1) == float(k1) + 1 and float(one_minus_b) + float(b) == 1
    message, summary = re.findall(r"avg=(\d+)", ranking)
    _held(
        "docs/design.md",
        [
            f"backoff ({worker.retry_initial_delay.seconds} s x{float(multiplier):g},"
            f" at most {hours:g} h)",
            f"(`k1` {k1}, `b` {b} around {message} lexemes for messages, {summary} for summaries)",
        ],
    )


def test_usage_says_the_limits_as_the_code_has_them() -> None:
    _held(
        "docs/usage.md",
        [
            f"beyond the {_merge.HISTORY_DAYS + 1} days of summaries",
            f"{_embedder.BATCH_SIZE} messages a request",
            f"provider is slow ({_n(_semantic.SEMANTIC_TIMEOUT_SECONDS)} s) or down",
            f"({_s('EPISODE_SILENCE_MINUTES') // 60} hours by default; `EPISODE_SILENCE_MINUTES`",
            f"(at most {_summaries.SUMMARY_CHARS} characters) and its open loops",
            f"in at most about {_digest.DIGEST_CHARS:,} characters",
            f"after a {_segment.SegmentRules().pause.seconds // 60}-minute pause",
            f"(pgvector, {EMBEDDING_DIMENSIONS} components, about"
            f" {EMBEDDING_DIMENSIONS * 2 / 1024:.1f} KB a message where the local model's"
            f" {_local.WIDTH} take {_local.WIDTH * 2 / 1024:.1f} KB",
            f"(in such a burst a reply waits at most {_n(_s('REPLY_BUSY_BUDGET_SECONDS'))} s for"
            " memory",
        ],
    )


def test_each_failure_mode_names_the_test_that_holds_its_figures() -> None:
    """Every row's Measured cell names its test(s), and each number it gives is written in them
    (a test whose scenario changed leaves a stale row here)."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = text[text.index("## Failure modes") : text.index("## Limits")]
    rows = [line for line in table.splitlines() if line.startswith("| ") and " | " in line]
    checked = 0
    for row in rows[1:]:
        failure, _does, measured = (cell.strip() for cell in row.strip("|").split(" | "))
        files = re.findall(r"`(tests/[^`]+\.py)`", measured)
        assert files, f"operations.md: {failure!r} names no test"
        source = " ".join((ROOT / name).read_text(encoding="utf-8") for name in files)
        for number in _NUMBER.findall(re.sub(r"`tests/[^`]+`", "", measured)):
            forms = {number, number.replace(",", ""), number.replace(",", "_")}
            assert any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d)", source) for f in forms), (
                f"operations.md: {failure!r} says {number}, which {files} do not"
            )
            checked += 1
    assert len(rows) >= 15 and checked >= 40
