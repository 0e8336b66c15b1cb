"""Extractive summaries: pick the most informative things people said, quote them, fit the cap.

The offline provider cannot paraphrase, so it does the honest thing: it quotes. A summary of
alice's day reads `alice said: "I got the job at the bakery!"; "starting monday". bob said
about alice: "she'll be great".` Quoted speech stays attributed to its speaker, so the text
is third person even when the quotes are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memory.core.text import (
    collapse,
    name_pattern,
    split_sentences,
    truncate,
    words,
)
from memory.language import ADDRESSING, restates_any
from memory.llm.offline._line_index import LineIndex
from memory.llm.offline._scoring import Rarity, sentence_score

_SURROGATE = re.compile(r"\[(?:image|file|video|audio|sticker|embed|attachment)[^\]]*\]", re.I)
_URL = re.compile(r"https?://\S+")
# A member's own sentence must say this much to be quoted in their note.
_MIN_SCORE = 3.0
# On a day when nothing anyone said reaches it, a member's best sentence above this is quoted.
_MIN_WEAK = 1.4
_WEAK_MAX = 60
# What others say to or about a member is news about them even when short ("congrats on
# the new job!"), so it needs less to qualify.
_MIN_SCORE_ABOUT = 1.5
_QUOTE_MAX = 160
# A member's own words come before what others said about them (second hand), at equal
# interest.
_OWN_BONUS = 1.0
_SECOND_HAND = 0.75
# Sentences of one message considered (their order within the day: line order * this + n).
_PER_LINE = 64


@dataclass(frozen=True)
class Utterance:
    """One chat message, reduced to what scoring needs."""

    order: int
    author: str
    text: str
    score: float


def clean_chat(text: str) -> str:
    """Message text without links and attachment surrogates, on one line."""
    text = _URL.sub("", _SURROGATE.sub("", text))
    return collapse(text.replace('"', "'"))


def quoted(text: str) -> str:
    return '"' + truncate(text, _QUOTE_MAX) + '"'


def _render(groups: Sequence[tuple[str, list[str]]]) -> str:
    """`speaker: "a"; "b".` per group, in the given order."""
    return " ".join(f"{label}: {'; '.join(quoted(t) for t in texts)}." for label, texts in groups)


def _pick(candidates: list[tuple[str, Utterance]], max_chars: int) -> str:
    """Greedy by score, rendered in chat order, grouped by label, within `max_chars`."""
    chosen: list[tuple[str, Utterance]] = []
    for candidate in sorted(candidates, key=lambda item: (-item[1].score, item[1].order)):
        trial = sorted([*chosen, candidate], key=lambda item: item[1].order)
        if len(_render(_group(trial))) <= max_chars:
            chosen = trial
    if not chosen and candidates:
        # Even the best message alone is too long: quote as much of it as fits.
        label, best = min(candidates, key=lambda item: (-item[1].score, item[1].order))
        room = max_chars - len(label) - 5
        if room > 20:
            return _render([(label, [truncate(best.text, room)])])
        return ""
    return _render(_group(chosen))


def _group(items: list[tuple[str, Utterance]]) -> list[tuple[str, list[str]]]:
    """Quotes under their label, labels in order of first appearance: a speaker is named
    once per note, not again each time someone else's quote came in between; sentences that
    follow each other in one message are one quote."""
    groups: dict[str, list[str]] = {}
    last: dict[str, int] = {}
    for label, utterance in items:
        texts = groups.setdefault(label, [])
        if texts and last[label] == utterance.order - 1 and utterance.order % _PER_LINE:
            texts[-1] = f"{texts[-1]} {utterance.text}"  # the next sentence of one message
        else:
            texts.append(utterance.text)
        last[label] = utterance.order
    return list(groups.items())


@dataclass(frozen=True)
class ChatLine:
    """A day's message prepared once: cleaned, scored, with who it replies to."""

    order: int
    author_id: int
    author: str
    text: str
    score: float
    replied_author_id: int | None
    # The message's sentences with what each tells about its author on this day.
    sentences: tuple[tuple[str, float], ...] = ()


def prepare_day(
    messages: Sequence[dict[str, object]],
    *,
    forgotten: Iterable[str] = (),
    names: Sequence[str] = (),
) -> list[ChatLine]:
    """Clean and score every message once; drop empty ones and ones making forgotten claims."""
    forgotten = list(forgotten)
    authors = {
        str(m.get("message_id")): int(str(m.get("author_id")))
        for m in messages
        if m.get("message_id") is not None
    }
    cleaned = [clean_chat(str(message.get("content") or "")) for message in messages]
    rarity = Rarity(text for text in cleaned if text)
    lines: list[ChatLine] = []
    for order, (message, text) in enumerate(zip(messages, cleaned, strict=True)):
        if not text or restates_any(text, forgotten, names=names):
            continue
        author_id = int(str(message.get("author_id")))
        reply_to = message.get("reply_to_id")
        sentences = tuple(
            (sentence, sentence_score(sentence, rarity)) for sentence in split_sentences(text)
        )
        lines.append(
            ChatLine(
                order=order,
                author_id=author_id,
                author=str(message.get("author_name") or f"user {author_id}"),
                text=text,
                score=max((score for _, score in sentences), default=0.0),
                replied_author_id=authors.get(str(reply_to)) if reply_to is not None else None,
                sentences=sentences,
            )
        )
    return lines


def summarize_member_day(
    lines: Sequence[ChatLine],
    *,
    user_id: int,
    name: str,
    aliases: Sequence[str],
    max_chars: int,
    index: LineIndex | None = None,
) -> str:
    """A member's most informative messages of the day, plus what others said to or about them
    (`index`: the day's lines indexed once, so only the lines that may concern them are read)."""
    mention = name_pattern([name, *aliases])
    candidates: list[tuple[str, Utterance]] = []
    quiet_day = all(line.score < _MIN_SCORE for line in lines)
    if index is not None:
        lines = [lines[i] for i in index.candidates(user_id, [name, *aliases])]
    own: list[tuple[str, Utterance]] = []
    for line in lines:
        if line.author_id == user_id:
            own.extend(_own_sentences(line, f"{name} said"))
            continue
        if line.score < _MIN_SCORE_ABOUT:
            continue
        named = mention is not None and mention.search(line.text) is not None
        if line.replied_author_id == user_id and (named or _addresses(line.text)):
            label = f"{line.author} replied to {name}"
        elif named:
            label = f"{line.author} said about {name}"
        else:
            continue
        text = _without_leading_mention(line.text, mention)
        candidates.append(
            (label, Utterance(line.order * _PER_LINE, line.author, text, line.score * _SECOND_HAND))
        )
    strong = [item for item in own if item[1].score - _OWN_BONUS >= _MIN_SCORE]
    if not strong and not candidates and own and quiet_day:
        # Nothing anyone said stands out (rarity tells nothing when all share their words):
        # the one thing they said that says most, short.
        label, best = min(own, key=lambda item: (-item[1].score, item[1].order))
        strong = [(label, replace(best, text=truncate(best.text, _WEAK_MAX)))]
    return _pick([*strong, *candidates], max_chars)


def _own_sentences(line: ChatLine, label: str) -> list[tuple[str, Utterance]]:
    """A member's sentences worth quoting: each on its merit, so one message's greeting stays
    out while its news goes in."""
    return [
        (label, Utterance(line.order * _PER_LINE + i, line.author, sentence, score + _OWN_BONUS))
        for i, (sentence, score) in enumerate(line.sentences[:_PER_LINE])
        if score >= _MIN_WEAK
    ]


def _addresses(text: str) -> bool:
    """Whether a reply speaks to the one it answers ("you", "your", "congrats")."""
    return bool(ADDRESSING.intersection(token.lower() for token in words(text)))


def _without_leading_mention(text: str, mention: re.Pattern[str] | None) -> str:
    """`@alice proud of her` -> `proud of her` under "bob said about alice": the label names
    her already."""
    if mention is None:
        return text
    found = re.match(rf"@?(?:{mention.pattern})[\s,:]+", text, re.IGNORECASE)
    return text[found.end() :] if found and found.end() < len(text) else text
