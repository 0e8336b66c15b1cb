"""Plain-text rules of any language: what a sentence is, words, cutting and fitting text.

Which words carry meaning and whether a sentence restates a statement are the language's
(`memory.language`). Deterministic and dependency-free on purpose: the same input gives the
same answer, fast, on any machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_SPACE = re.compile(r"\s+")
_TERMINAL = ".!?…"


def wordset(text: str) -> frozenset[str]:
    """A word list written as prose (easier to read and extend than a list literal)."""
    return frozenset(text.split())


def collapse(text: str) -> str:
    """One line, single spaces."""
    return _SPACE.sub(" ", text).strip()


def words(text: str) -> list[str]:
    return [match.group(0) for match in _WORD.finditer(text)]


def drop_sentences(text: str, drop: Callable[[str], bool]) -> tuple[str, int]:
    """`text` without the sentences `drop` picks, and how many went; untouched when none did."""
    if not text:
        return text, 0
    kept: list[str] = []
    dropped = 0
    for sentence in split_sentences(text):
        if drop(sentence):
            dropped += 1
        else:
            kept.append(sentence)
    return (" ".join(kept), dropped) if dropped else (text, 0)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, never splitting inside double quotes (quoted chat stays whole).

    A line break always ends a sentence, so one stray quote mark cannot glue the rest of a
    text into one sentence."""
    sentences: list[str] = []
    current: list[str] = []
    in_quote = False
    length = len(text)
    for index, char in enumerate(text):
        if char == "\n":
            _flush(current, sentences)
            in_quote = False
            continue
        current.append(char)
        if char in '"“”':
            in_quote = (not in_quote) if char == '"' else char == "“"
            # A closing quote ends the sentence only after terminal punctuation inside it
            # and before a capital ('... it!" Then ...').
            closes_sentence = current[-2:-1] and current[-2] in _TERMINAL
            if not in_quote and closes_sentence and _capital_next(text, index):
                _flush(current, sentences)
            continue
        if in_quote or char not in _TERMINAL:
            continue
        if index + 1 >= length or text[index + 1].isspace():
            _flush(current, sentences)
    _flush(current, sentences)
    return sentences


def _capital_next(text: str, index: int) -> bool:
    rest = text[index + 1 :].lstrip()
    return bool(rest) and rest[0].isupper()


def _flush(current: list[str], sentences: list[str]) -> None:
    sentence = collapse("".join(current))
    if sentence:
        sentences.append(sentence)
    current.clear()


def end_sentence(text: str) -> str:
    """Make sure a sentence ends with terminal punctuation (a closing quote counts after it)."""
    text = text.strip()
    if not text:
        return text
    core = text.rstrip("\"”')")
    return text if core and core[-1] in _TERMINAL else text + "."


def truncate(text: str, max_chars: int) -> str:
    """Cut at a word boundary and mark the cut, never exceeding `max_chars`."""
    text = collapse(text)
    if len(text) <= max_chars:
        return text
    if max_chars <= 1:
        return text[:max_chars]
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def fit(sentences: Iterable[str], max_chars: int, *, separator: str = " ") -> str:
    """Join sentences in order, skipping any that would pass `max_chars`."""
    out: list[str] = []
    used = 0
    for sentence in sentences:
        extra = len(sentence) + (len(separator) if out else 0)
        if used + extra <= max_chars:
            out.append(sentence)
            used += extra
    return separator.join(out)


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """One compiled whole-word, case-insensitive pattern for any of `names` (2+ chars)."""
    usable = sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True)
    if not usable:
        return None
    alternatives = "|".join(re.escape(n) for n in usable)
    return re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])", re.IGNORECASE)


def mentions_name(text: str, name: str) -> bool:
    """Whole-word, case-insensitive: "alice" in "@Alice!" but not in "malice"."""
    name = name.strip()
    if len(name) < 2:
        return False
    pattern = r"(?<![\w])" + re.escape(name) + r"(?![\w])"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 LLM call`, `2 LLM calls`, `0 batches` (`many` for irregular plurals)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
