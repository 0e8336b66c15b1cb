"""The settings and constants the docs name are the code's (issue 44: a number typed into prose
goes stale). A default or constant changed without the sentence that says it fails here; a
measurement is held by tests/bench/test_doc_figures.py instead."""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

from safetensors import safe_open

from bot import rate_buckets
from db import pool, recall_hits, recall_statements, search_config
from db import recall as db_recall
from db.embeddings import MEMBER_WINDOW, STORED_WIDTHS
from memory.context import _merge
from memory.core.settings import SECRETS_DIR
from memory.episodes import _reply, _segment
from memory.jobs import _worker
from memory.llm.embeddings import EMBEDDING_DIMENSIONS, _embedder, _local
from memory.recall import _exchange, _feedback, _hybrid, _index, _member, _search, _semantic, _terms
from memory.replies import _budget, _window
from memory.summaries import _daily, _historical, _note_room, _notes
from tests.doc_support import ROOT
from tests.doc_support import doc as _doc
from tests.doc_support import number as _n
from tests.doc_support import setting as _s

DOCS = ["README.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md")))]
HISTORY = "docs/performance-history.md"
# Variables the README's table lists that are not settings: read by a library, the clock, the
# image or Compose.
_ENVIRONMENT_ONLY = {
    "PGQUEUER_PREFIX",
    "PGQUEUER_SCHEMA",
    "MEMORYBOT_NOW",
    "MEMORYBOT_IN_CONTAINER",
    "POSTGRES_PASSWORD",
}
_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
_FRACTIONS = {
    (3, 8): "three eighths",
    (11, 24): "eleven twenty-fourths",
    (1, 8): "an eighth",
    (1, 2): "half",
}


def _pct(value: float) -> str:
    return f"{value:.0%}"


def _held(doc: str, sentences: list[str]) -> None:
    text = _doc(doc)
    missing = [sentence for sentence in sentences if sentence not in text]
    assert not missing, f"{doc} should say: {missing}"


def test_a_setting_in_parentheses_is_its_default() -> None:
    """`NAME` (value): the default as the docs write it (seconds, MB, or a bare number)."""
    constants = {"COMMAND_TIMEOUT_SECONDS": pool.COMMAND_TIMEOUT_SECONDS}
    said = re.compile(r"`([A-Z][A-Z0-9_]{3,})` \((?:default )?([0-9][0-9.,]*)( s| MB)?[,;)]")
    seen = 0
    for doc in DOCS:
        if doc == HISTORY:
            continue
        for name, number, unit in said.findall(_doc(doc)):
            value = constants[name] if name in constants else _s(name)
            expected = float(value) / (1_000_000 if unit == " MB" else 1)
            assert float(number.replace(",", "")) == expected, f"{doc}: {name} ({number}{unit})"
            seen += 1
    assert seen >= 10


def test_the_readme_table_gives_each_settings_default() -> None:
    row = re.compile(r"^\| (`[A-Z][A-Z0-9_]+`(?: / `[A-Z][A-Z0-9_]+`)*) \| ([^|]+) \|", re.M)
    checked = 0
    for names, defaults in row.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        keys = [name.strip("` ") for name in names.split(" / ")]
        cells = [cell.strip() for cell in defaults.split(" / ")]
        if len(cells) != len(keys):
            continue
        for key, cell in zip(keys, cells, strict=True):
            if key in _ENVIRONMENT_ONLY:
                continue
            default = str(SECRETS_DIR) if key == "MEMORYBOT_SECRETS_DIR" else _s(key)
            if cell == "unset":
                assert default in (None, ""), f"README: {key} is not unset by default"
            elif re.fullmatch(r"`[^`]+`", cell) and not re.fullmatch(r"`[A-Z_]+`", cell):
                literal = cell.strip("`")
                if isinstance(default, bool):
                    assert literal == str(default).lower(), f"README: {key} {literal}"
                elif isinstance(default, int | float):
                    assert float(literal) == default, f"README: {key} {literal}"
                else:
                    assert literal == str(default), f"README: {key} {literal}"
                checked += 1
    assert checked >= 50


def test_design_says_the_reply_paths_budgets_as_the_code_has_them() -> None:
    busy, wait = _s("REPLY_BUSY_REPLIES"), _s("REPLY_BUSY_BUDGET_SECONDS")
    _held(
        "docs/design.md",
        [
            f"Past {_pct(_window.FOLD_THRESHOLD)} of its budget the oldest half is folded",
            f"after {_n(_s('WINDOW_SOFT_DECAY_MINUTES'))} minutes of silence the whole window is"
            f" folded, after {_n(_s('WINDOW_HARD_DECAY_MINUTES'))} it is cleared",
            f"In a burst (more than {busy} replies composing at once) each reply waits at most"
            f" {_n(wait)} s for its memory",
            f"and {_s('REPLY_PARALLEL_RECALLS')} recall searches run at once",
            f"hits get {_FRACTIONS[_budget.RECALLED_SHARE]} of the prompt's remaining token budget"
            f" (the members' contexts {_FRACTIONS[_budget.MEMBERS_SHARE]}, the channel's episode"
            f" {_FRACTIONS[_budget.EPISODE_SHARE]},",
            f"recall gets {_FRACTIONS[_budget.RECALLED_SHARE]} of the prompt's free tokens with"
            f" {_s('REPLY_RECALL_HITS')} hits",
            f"until {_n(_s('REPLY_SEMANTIC_WAIT_SECONDS'))} s after it began"
            f" (`REPLY_SEMANTIC_WAIT_SECONDS`, at least {_n(_search.SEMANTIC_GRACE_SECONDS)} s"
            " past its full-text lanes)",
            f"past {rate_buckets.FIRST_SCAN_AT} (`bot/rate_buckets.py`",
        ],
    )
    _held("README.md", [f"(at most {_n(wait)} s while more than {busy} replies compose at once)"])
    _held(
        "README.md",
        [
            f"(a member's notes share {_n(_note_room.DAY_ROOM)}x DAILY_SUMMARY_CHARS a day, and a"
            f" day is kept as its notes up to {_daily.VERBATIM_DAY}x before it is condensed)",
        ],
    )


def test_design_says_the_summaries_rules_as_the_code_has_them() -> None:
    _held(
        "docs/design.md",
        [
            f"(or when {_notes.SKIP_MAX_MESSAGES} or more are unread)",
            f"({_n(_note_room.DAY_ROOM)} summary lengths, DAILY_SUMMARY_CHARS) after the earlier"
            f" passes, never under {_note_room.NOTE_FLOOR} characters",
            f"up to {_WORDS[_daily.VERBATIM_DAY]} summary lengths (VERBATIM_DAY)",
            f"A narrative one or {_WORDS[_historical.ATTACH_DAYS]} days behind (ATTACH_DAYS)",
            f"{_pct(_merge.NEWER_SHARE)} for the newer days, {_pct(_merge.TODAY_SHARE)} for today",
            f"within the last {_worker.LOOKBACK.days} days",
            f"after a {_segment.SegmentRules().pause.seconds // 60}-minute pause",
        ],
    )


def test_design_says_the_embeddings_as_the_code_has_them() -> None:
    day = 500
    _held(
        "docs/design.md",
        [
            f"`memory/llm/embeddings/` batches {_embedder.BATCH_SIZE} texts a request",
            f"{math.ceil(day / _embedder.BATCH_SIZE)} requests for a {day}-message day",
            f"up to {_index.BATCH * _index.BATCHES_PER_JOB:,} messages newest first",
            f"(batches of {_index.BATCH}, in a worker thread;",
            f"by a similarity floor ({_n(_local.LocalEmbeddings.min_similarity)};",
            f"The question is embedded ({_n(_semantic.SEMANTIC_TIMEOUT_SECONDS)} s at most;",
            f"ranks exactly the newest {MEMBER_WINDOW:,} messages they wrote",
            f"`Σ 1/({_hybrid.K} + rank)`",
            f"(the local one: {_n(_local.LocalEmbeddings.min_similarity)};",
            f"rewrites the guild's vectors {search_config.REINDEX_BATCH:,} rows per statement",
        ],
    )


def test_design_describes_the_shipped_static_table() -> None:
    spec = importlib.util.find_spec("wordllama")
    assert spec and spec.origin, "wordllama is a base dependency"
    weights = Path(spec.origin).parent / _local.WEIGHTS
    with safe_open(str(weights), "numpy") as table:
        (name,) = table.keys()
        rows, width = table.get_slice(name).get_shape()
        dtype = table.get_slice(name).get_dtype()
    assert dtype == "F16" and width == _local.WIDTH and width in STORED_WIDTHS
    megabytes = weights.stat().st_size / 1_000_000
    _held(
        "docs/design.md",
        [
            f"(a {rows:,} x {width} float16 token table, {megabytes:.0f} MB)",
            f"stored at their own {width} components ({width * 2 / 1024:.1f} KB a message; an API"
            f" model's {EMBEDDING_DIMENSIONS} take {EMBEDDING_DIMENSIONS * 2 / 1024:.1f} KB)",
            f"`embedding::halfvec({width})` where `vector_dims(embedding) = {width}`",
        ],
    )


def test_every_vector_width_said_is_an_indexed_one() -> None:
    width = re.compile(r"(\d+)[- ]dimension|halfvec\((\d+)\)")
    said = [int(a or b) for doc in DOCS if doc != HISTORY for a, b in width.findall(_doc(doc))]
    assert len(said) >= 5 and set(said) == set(STORED_WIDTHS), said


def test_design_says_how_recall_ranks_as_the_code_does() -> None:
    terms, half = _terms.MAX_TERMS, _FRACTIONS[(1, 2)]
    assert _terms.PREFIX_WEIGHT == _feedback.FEEDBACK_WEIGHT == 0.5
    _held(
        "docs/design.md",
        [
            f"The question is read up to {_terms.MAX_QUESTION_CHARS:,} characters and"
            f" {_terms.MAX_WORDS} distinct words; the {terms} rarest words the guild said are"
            f" kept (so a 100,000-character or a 30-word question costs what an {terms}-word one",
            f"for lexemes of {_terms.MIN_PREFIX} letters or more, the count of lexemes it prefixes",
            f"a word of {_terms.MIN_PREFIX}+ letters also matches what it prefixes",
            f'("climb" -> "climbing") at {half} the idf of its prefix count',
            f"their counts add up to at most {_terms.CANDIDATE_BUDGET:,} rows",
            f"with another of the {_WORDS[_terms.PAIRED_TERMS]} rarest",
            f"Each lane scores at most {db_recall.CANDIDATE_CAP:,} candidate rows",
            f"the first named member's newest {db_recall.AUTHORED_SCAN:,} messages",
            f"`SET LOCAL statement_timeout = {db_recall.STATEMENT_TIMEOUT_MS}` (ms)",
            f"else {recall_hits.NEIGHBOUR_HOURS} hours",
            f"the nearest run (up to {_exchange.TURN_LINES} lines) of another speaker",
            f"an exchange holds at most {_exchange.MAX_LINES} lines besides its hits",
            f"the best {_feedback.FEEDBACK_DOCS} messages of the first search are taken as"
            f" relevant; the words they hold that the question does not"
            f" ({_feedback.MIN_LETTERS} letters or more, no digits)",
            f"the {_feedback.FEEDBACK_TERMS} best by share x idf among those held by at most"
            f" {_pct(_feedback.MAX_DOC_SHARE)} of the guild's messages (at least"
            f" {_feedback.MAX_DOCS_SMALL}) join a second message search as whole-word terms at"
            f" {half} of (share x idf)",
        ],
    )
    seconds = db_recall.STATEMENT_TIMEOUT_MS / 1000
    _held(
        "docs/usage.md",
        [
            f"read up to its {_terms.MAX_WORDS} first words ({_terms.MAX_QUESTION_CHARS:,}"
            " characters;",
            f"a search never runs longer than {_n(seconds)} s in PostgreSQL",
        ],
    )


def test_design_says_the_member_lane_as_the_code_has_it() -> None:
    hits, lines = _s("REPLY_STATEMENT_HITS"), recall_statements
    _held(
        "docs/design.md",
        [
            f"also brings up to {hits} of that member's most informative statements"
            f" (`REPLY_STATEMENT_HITS`; one fewer for each of the member's own statements of"
            f" {_member.STATEMENT_WORDS}+ words",
            f"the member's newest {lines.MEMBER_SCAN} messages",
            f"lines of {lines.MIN_LEXEMES}-{lines.MAX_LEXEMES} words",
            f"a word in {_pct(lines.FLOOR_SHARE)} of the guild's messages or more (at least"
            f" {lines.FLOOR_DOCS}) counts nothing",
            f"count {_n(lines.FIRST_PERSON_FACTOR)} times",
        ],
    )
    _held("docs/usage.md", [f"brings up to {_WORDS[hits]} of their most informative statements"])


def test_the_docs_say_how_many_episodes_a_stretch_asked_about_brings() -> None:
    five = _WORDS[_reply.ASKED_LIMIT]
    _held("docs/design.md", [f"a day's newest {five}, a longer stretch's biggest {five}"])
    _held("docs/usage.md", [f"stretch's biggest {five}"])
