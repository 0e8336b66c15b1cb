"""What a sentence means for matching: its content words by stem, and whether it restates a
statement. English and Russian (stop words, Cyrillic endings); a third language would add its
words here.

One place decides which words carry meaning and whether a sentence restates a statement,
because "forgetting must stick" only holds if the facts service, the summary filter and the
offline model all draw that line in the same spot. Deterministic and dependency-free on purpose.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from memory.core.text import drop_sentences, words, wordset

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
    ignored = _name_words(tuple(names))
    return {token for folded, token in pairs if folded not in ignored}


@lru_cache(maxsize=1024)  # asked once per message of a stretch with the same member's names
def _name_words(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_fold(word) for name in names for word in words(name))


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


def drop_restating(
    text: str, statements: Iterable[str], *, names: Iterable[str] = ()
) -> tuple[str, int]:
    """`text` without the sentences that restate any of `statements`; (text, sentences dropped)."""
    wanted = [statement for statement in statements if statement.strip()]
    if not wanted:
        return text, 0
    names = tuple(names)
    return drop_sentences(text, lambda sentence: restates_any(sentence, wanted, names=names))
