"""Plain-text helpers for the offline provider: sentences, tokens, overlap, length caps.

Deterministic and dependency-free on purpose: the offline provider must give the same answer
for the same input, fast, on any machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_SPACE = re.compile(r"\s+")
_TERMINAL = ".!?…"


def wordset(text: str) -> frozenset[str]:
    """A word list written as prose (easier to read and extend than a list literal)."""
    return frozenset(text.split())


# Words that carry no meaning for matching statements against sentences.
STOPWORDS = wordset(
    """
    a an the and or but nor so yet if then than that this these those there here it its
    i me my mine we us our ours you your yours he him his she her hers they them their theirs
    is am are was were be been being has have had do does did doing will would shall should
    can could may might must in on at to of for with from by about into onto over under as
    up down out off again also just very really quite too not no never n't dont doesnt didnt
    isnt wasnt arent s t said says say told tell now today yesterday tomorrow
    """
)

# Chat filler that makes a message look long without saying anything.
FILLER = wordset(
    """
    lol lmao lmfao rofl haha hahaha hehe xd xdd ok okay k kk yeah yea yep yes nope nah
    thanks thank thx ty np hi hello hey yo sup gg wp nice cool wow omg idk tbh ikr ngl
    hmm hm ah oh uh um yay welcome sure great good bad same true fr bruh
    """
)


def collapse(text: str) -> str:
    """One line, single spaces."""
    return _SPACE.sub(" ", text).strip()


def words(text: str) -> list[str]:
    return [match.group(0) for match in _WORD.finditer(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude, consistent stem: enough to match "lives"/"lived"/"living" with "live"."""
    token = word.lower().replace("’", "'")
    if token.endswith("'s"):
        token = token[:-2]
    token = token.replace("'", "")
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if len(token) > len(suffix) + 2 and token.endswith(suffix) and not token.endswith("ss"):
            token = token[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(token) > 3 and token.endswith("e"):
        token = token[:-1]
    return token


def content_tokens(text: str, *, ignore: Iterable[str] = ()) -> set[str]:
    """Stems of the meaningful words, minus stopwords and any words in `ignore` (names)."""
    ignored = {stem(word) for name in ignore for word in words(name)}
    tokens = set()
    for word in words(text):
        lowered = word.lower().replace("’", "'")
        if lowered in STOPWORDS or lowered.replace("'", "") in STOPWORDS:
            continue
        token = stem(word)
        if token and token not in ignored and token not in STOPWORDS:
            tokens.add(token)
    return tokens


def coverage(statement: set[str], sentence: set[str]) -> float:
    """Share of the statement's tokens the sentence contains."""
    if not statement:
        return 0.0
    return len(statement & sentence) / len(statement)


def jaccard(left: set[str], right: set[str]) -> float:
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def matches_statement(sentence: str, statement: str, *, names: Iterable[str] = ()) -> bool:
    """Does `sentence` make the claim `statement` makes? Normalised token overlap.

    The member's own names are ignored on both sides (every sentence about alice says
    "alice"); two thirds of the statement's remaining words must appear in the sentence.
    """
    names = list(names)
    wanted = content_tokens(statement, ignore=names)
    if not wanted:
        return False
    return coverage(wanted, content_tokens(sentence, ignore=names)) >= 0.66


def matches_any(sentence: str, statements: Iterable[str], *, names: Iterable[str] = ()) -> bool:
    names = list(names)
    return any(matches_statement(sentence, statement, names=names) for statement in statements)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, never splitting inside double quotes (quoted chat stays whole)."""
    sentences: list[str] = []
    current: list[str] = []
    in_quote = False
    length = len(text)
    for index, char in enumerate(text):
        if char == "\n" and not in_quote:
            _flush(current, sentences)
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


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


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
