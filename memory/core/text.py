"""Plain-text rules shared by facts, summaries and the offline provider.

One place decides what a sentence is, which words carry meaning, and whether a sentence
restates a statement, because "forgetting must stick" only holds if the facts service, the
summary filter and the offline model all draw that line in the same spot.

Deterministic and dependency-free on purpose: the same input gives the same answer, fast, on
any machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_SPACE = re.compile(r"\s+")
_TERMINAL = ".!?…"


def wordset(text: str) -> frozenset[str]:
    """A word list written as prose (easier to read and extend than a list literal)."""
    return frozenset(text.split())


# Words that carry no meaning for matching statements against sentences (English, Russian;
# written without ё, which `_fold` turns into е).
STOPWORDS = wordset(
    """
    a an the and or but nor so yet if then than that this these those there here it its
    i me my mine we us our ours you your yours he him his she her hers they them their theirs
    is am are was were be been being has have had do does did doing will would shall should
    can could may might must in on at to of for with from by about into onto over under as
    up down out off again also just very really quite too not no never n't dont doesnt didnt
    isnt wasnt arent s t said says say told tell now today yesterday tomorrow
    и в во на не ни что чтобы это этот эта эти тот та те он она оно они его ее их ей ему им
    ним нее него я мы ты вы меня мне мой моя мое мои наш наша наши твой ваш свой своя свои
    себя с со к ко у о об обо по за из от до для про же ли бы был была было были быть есть
    очень тоже также уже еще а но да нет так как сказал сказала сказали
    """
)

# Russian case and verb endings, longest first: enough for "пиццу"/"пицца", "любит"/"любила".
_CYRILLIC_ENDINGS = sorted(
    wordset(
        """
        ами ями ого его ому ему ыми ими ить ать еть ять ила ала ела или али ели ило ало ело
        ой ей ом ем ах ях ам ям ов ев ую юю ая яя ое ее ые ие ый ий ых их ым им ил ал ел
        ит ет ут ют ат ят ть а я у ю ы и е о ь й
        """
    ),
    key=lambda ending: (-len(ending), ending),
)


def collapse(text: str) -> str:
    """One line, single spaces."""
    return _SPACE.sub(" ", text).strip()


def words(text: str) -> list[str]:
    return [match.group(0) for match in _WORD.finditer(text)]


def _fold(word: str) -> str:
    """Lower case, without a possessive 's, apostrophes or the ё/е distinction."""
    token = word.lower().replace("’", "'").replace("ё", "е")
    if token.endswith("'s"):
        token = token[:-2]
    return token.replace("'", "")


def _is_cyrillic(token: str) -> bool:
    return any("\u0400" <= char <= "\u04ff" for char in token)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude, consistent stem: "lives"/"lived"/"living" meet "live", "пиццу" meets "пицца"."""
    token = _fold(word)
    if _is_cyrillic(token):
        for ending in _CYRILLIC_ENDINGS:
            if len(token) - len(ending) >= 3 and token.endswith(ending):
                return token[: -len(ending)]
        return token
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if len(token) > len(suffix) + 2 and token.endswith(suffix) and not token.endswith("ss"):
            token = token[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(token) > 3 and token.endswith("e"):
        token = token[:-1]
    return token


def content_tokens(text: str, *, ignore: Iterable[str] = ()) -> set[str]:
    """Stems of the meaningful words, minus stopwords and the words of `ignore` (names).

    Names are compared as whole words, not stems, so a member called "Liv" does not hide
    "lives"."""
    return without_names(content_words(text), ignore)


def content_words(text: str) -> tuple[tuple[str, str], ...]:
    """(whole word folded, its stem) for each meaningful word: read once, then filtered for
    each member's names with `without_names` (cheaper than reading the text per member)."""
    found = []
    for word in words(text):
        folded = _fold(word)
        if folded in STOPWORDS:
            continue
        token = stem(word)
        if token and token not in STOPWORDS:
            found.append((folded, token))
    return tuple(found)


def without_names(pairs: Iterable[tuple[str, str]], names: Iterable[str]) -> set[str]:
    """The stems of `pairs` (from `content_words`) whose whole word is not one of `names`'."""
    ignored = {_fold(word) for name in names for word in words(name)}
    return {token for folded, token in pairs if folded not in ignored}


def jaccard(left: set[str], right: set[str]) -> float:
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def restates(sentence: str, statement: str, *, names: Iterable[str] = ()) -> bool:
    """Does `sentence` say what `statement` says? The one rule for forgetting and un-forgetting.

    It does when it holds every content word of the statement, compared by stem, in any order
    and with any words around them: "Alice liked pizza a lot" restates "likes pizza". Stopwords
    and the member's `names` do not count (a summary says "she" as often as "Alice"). The rule
    errs on the side of forgetting: negation is a stopword, so "she doesn't like pizza" goes
    too. It is all or nothing on purpose: remembering a statement lifts the forgets it
    restates by this same rule, so a looser match would let a new fact be stripped or lift a
    forget nobody asked to lift. A statement with no content words restates nothing.
    """
    return restates_any(sentence, (statement,), names=names)


def restates_any(sentence: str, statements: Iterable[str], *, names: Iterable[str] = ()) -> bool:
    """`restates` for several statements, reading the sentence once."""
    names = tuple(names)
    have: set[str] | None = None
    for statement in statements:
        wanted = _statement_tokens(statement, names)
        if not wanted:
            continue
        if have is None:
            have = content_tokens(sentence, ignore=names)
        if wanted <= have:
            return True
    return False


@lru_cache(maxsize=4096)
def _statement_tokens(statement: str, names: tuple[str, ...]) -> frozenset[str]:
    # The same few forgotten statements are checked against every sentence of every summary.
    return frozenset(content_tokens(statement, ignore=names))


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


def drop_restating(
    text: str, statements: Iterable[str], *, names: Iterable[str] = ()
) -> tuple[str, int]:
    """`text` without the sentences that restate any of `statements`; (text, sentences dropped)."""
    wanted = [statement for statement in statements if statement.strip()]
    if not wanted:
        return text, 0
    names = tuple(names)
    return drop_sentences(text, lambda sentence: restates_any(sentence, wanted, names=names))


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
