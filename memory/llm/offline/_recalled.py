"""Offline answers from recalled messages: the reply prompt's `<recalled>` elements, read back.

When a member asks about the past, the reply composer puts the messages search found into the
prompt, a hit per `<recalled hit=".." date="..">` element whose lines are a transcript
(`Sam [found]: what was said`, memory/replies/_recalled.py), later hits' found lines alone in
one `kind="more"` element, each with its date; an element with an `author` is one message
(attributes vary: `day`, `date` with or without its weekday, `channel`, `url`).
Without a model the honest answer is the message itself: the hit(s) sharing the question's
rarest words, quoted with who said it and when ("On Thu 2023-07-06 Sam said: ...").
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, replace
from datetime import date

from memory.core.text import truncate
from memory.language import content_tokens, day_label, written_date

_RECALLED = re.compile(r"<recalled\b(?P<attrs>[^>]*)>(?P<body>.*?)</recalled\s*>", re.S | re.I)
_MESSAGE = re.compile(r"<message\b[^>]*>(?P<body>.*?)</message\s*>", re.S | re.I)
_ATTR = re.compile(r"(?P<key>[\w:-]+)\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)')")
# `name [notes]: text`: a transcript line of a hit (names carry no brackets or colons).
_TRANSCRIPT_LINE = re.compile(
    r"^(?P<name>[^\[\]:\n]+?)(?: \[(?P<notes>[^\]\n]*)\])?: (?P<text>.+)$"
)
_FOUND = "found"
# The element of later hits' found lines, each alone (memory/replies/_recalled.py).
_MORE = "more"
_DATE_KEYS = ("date", "day", "at", "when", "timestamp")
_AUTHOR_KEYS = ("author", "by", "speaker", "name", "member")
_QUOTE_MAX = 300
# A second hit is quoted too when it answers almost as well as the best one.
_CLOSE = 0.75
_MAX_HITS = 2


@dataclass(frozen=True)
class Recalled:
    """One recalled message as the prompt gave it."""

    text: str
    author: str
    when: str
    channel: str
    url: str
    hit: str = ""  # lines of one search hit share it (a match and its neighbours)
    kind: str = "message"  # or "summary": a day summary, quoted only when no message answers
    # The question this line answers: the line just before it in its hit, when that one asks.
    asked: str = ""
    asked_by: str = ""
    time: str = ""  # "14:05" when the prompt gave it


def _attributes(raw: str) -> dict[str, str]:
    found = {}
    for match in _ATTR.finditer(raw):
        value = match.group("dq") if match.group("dq") is not None else match.group("sq")
        found[match.group("key").lower()] = html.unescape(value or "").strip()
    return found


def _lone_time(attributes: dict[str, str]) -> str:
    """A `time` is the only date an element outside a hit has; a line of a hit without a
    date was said on its match's day (`_with_their_hit`)."""
    return "" if attributes.get("hit") else attributes.get("time", "")


def _kind(given: str) -> str:
    """A hit's kind: "summary" for a day summary; any other ("more": later hits' found
    lines) is messages."""
    return "summary" if given == "summary" else "message"


def _first(attributes: dict[str, str], keys: tuple[str, ...]) -> str:
    return next((attributes[key] for key in keys if attributes.get(key)), "")


def _when(value: str) -> str:
    """ "Thu 6 July 2023" from any date attribute that names a day; else as given."""
    day = written_date(value)
    return value if day is None else day_label(day)


def recalled_messages(prompt: str) -> list[Recalled]:
    """Every line of every `<recalled>` element of a reply prompt, in order, unescaped."""
    hits: list[Recalled] = []
    for match in _RECALLED.finditer(prompt):
        attributes = _attributes(match.group("attrs"))
        channel = attributes.get("channel", "")
        if channel and not channel.startswith("#"):
            channel = f"#{channel}"
        lead = Recalled(
            text="",
            author=_first(attributes, _AUTHOR_KEYS),
            when=_when(_first(attributes, _DATE_KEYS) or _lone_time(attributes)),
            channel=channel,
            url=attributes.get("url", "") or attributes.get("link", ""),
            hit=attributes.get("hit", ""),
            kind=_kind(attributes.get("kind", "")),
            time=attributes.get("time", ""),
        )
        body = match.group("body")
        lines = [] if lead.author else _transcript(body, lead)
        if attributes.get("kind") == _MORE:  # each line a hit of its own, found alone
            lines = [replace(line, hit=f"{lead.hit}.{n}") for n, line in enumerate(lines)]
        if lines:
            hits.extend(lines)
        elif text := html.unescape(body).strip():
            hits.append(replace(lead, text=text))
    return _answers_paired(_with_their_hit(_once(hits)))


def _transcript(body: str, lead: Recalled) -> list[Recalled]:
    """A hit's transcript lines, each with its speaker; the match (`[found]`, or the only
    line) keeps the hit's time and link, a line with a date of its own keeps that date."""
    said = body.strip().splitlines()
    parsed = [found for line in said if (found := _TRANSCRIPT_LINE.match(line.strip()))]
    if not parsed or len(parsed) != len(said):
        return []
    lines = []
    for found in parsed:
        notes = [note.strip() for note in (found.group("notes") or "").split(";")]
        own_day = next((note for note in notes if "=" not in note and written_date(note)), "")
        is_match = _FOUND in notes or len(parsed) == 1
        lines.append(
            replace(
                lead,
                text=html.unescape(found.group("text")).strip(),
                author=html.unescape(found.group("name")).strip(),
                when=_when(own_day) if own_day else lead.when,
                url=lead.url if is_match else "",
                time=lead.time if is_match else "",
            )
        )
    return lines


def _once(hits: list[Recalled]) -> list[Recalled]:
    """Each line once, however many hits brought it (by link, else by who said what when)."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    for hit in hits:
        key = (hit.url,) if hit.url else (hit.author, hit.when, hit.time, hit.text)
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept


def _with_their_hit(hits: list[Recalled]) -> list[Recalled]:
    """The lines of a hit's exchange share its channel and its link (the conversation), and
    its day unless they say another: the prompt gives them once, on the match."""
    lead: dict[str, Recalled] = {}
    for hit in hits:
        if hit.hit and (hit.url or hit.channel):
            lead.setdefault(hit.hit, hit)
    return [
        replace(
            hit,
            channel=hit.channel or lead[hit.hit].channel,
            url=hit.url or lead[hit.hit].url,
            when=hit.when or lead[hit.hit].when,
        )
        if hit.hit in lead
        else hit
        for hit in hits
    ]


def _answers_paired(hits: list[Recalled]) -> list[Recalled]:
    """A line right after a question in the same hit, by someone else, answers it ("How is
    the new flat?" / "small but it has a balcony"): it carries the question along, so the
    question's words find the answer."""
    paired = list(hits)
    for index in range(1, len(paired)):
        before, line = paired[index - 1], paired[index]
        if (
            line.hit
            and line.hit == before.hit
            and before.text.rstrip().endswith("?")
            and not line.text.rstrip().endswith("?")
            and before.author != line.author
        ):
            paired[index] = replace(line, asked=before.text, asked_by=before.author)
    return paired


def question_of(prompt: str) -> str:
    match = _MESSAGE.search(prompt)
    return html.unescape(match.group("body")).strip() if match else ""


def best_hits(question: str, hits: list[Recalled], *, ignore: list[str]) -> list[Recalled]:
    """The hits sharing the question's rarest words (rarity among the hits: a word every hit
    holds tells none apart); none when no hit shares a word with the question. A hit by a
    member the question names counts one word more; a question (the asking message itself,
    say) is never an answer."""
    hits = [hit for hit in hits if not hit.text.rstrip().endswith("?")]  # never an answer
    # Names pick whose messages, not what about: a member's name in the question is a boost
    # for their own messages, not a word to find.
    authors = [hit.author for hit in hits if hit.author]
    wanted = content_tokens(question, ignore=[*ignore, *authors])
    if not wanted or not hits:
        return []
    tokens = [content_tokens(f"{hit.asked} {hit.text}") for hit in hits]
    size = len(hits)
    weight = {
        word: math.log((size + 1) / (sum(word in held for held in tokens) + 0.5)) for word in wanted
    }
    lowered = question.lower()
    scores = []
    for hit, held in zip(hits, tokens, strict=True):
        score = sum(weight[word] for word in wanted & held)
        if score > 0 and hit.author and hit.author.lower() in lowered:
            score += math.log(size + 1) / 2
        scores.append(score)
    best = max(scores)
    if best <= 0:
        return []
    if any(score > 0 and hit.kind == "message" for hit, score in zip(hits, scores, strict=True)):
        # A message that answers beats a summary retelling it ("Bob said: ...").
        scores = [
            0.0 if hit.kind != "message" else score for hit, score in zip(hits, scores, strict=True)
        ]
        best = max(scores)
    ranked = sorted(range(size), key=lambda i: (-scores[i], i))
    chosen = [i for i in ranked[:_MAX_HITS] if scores[i] >= best * _CLOSE]
    return [
        hits[i] for i in sorted(chosen, key=lambda i: (written_date(hits[i].when) or date.min, i))
    ]


def _retold(hit: Recalled, when: str, who: str) -> str:
    """A day summary already tells who said what (`Carol said: "..."`): given as it is, not
    quoted inside another `Carol said`."""
    text = truncate(hit.text, _QUOTE_MAX)
    if not text.lower().startswith(who.lower()):
        text = f"the notes about {who} say: {text}"
    return f"{when.rstrip()}, {text}" if when else text[0].upper() + text[1:]


def said(hit: Recalled) -> str:
    """`On Thu 2023-07-06 at 14:05 Sam said in #general: "..."` (parts the prompt lacked
    left out)."""
    at = f" at {hit.time}" if hit.time and hit.when else ""
    when = f"On {hit.when}{at} " if hit.when else ""
    who = hit.author or "someone"
    if hit.kind == "summary":
        return _retold(hit, when, who)
    where = f" in {hit.channel}" if hit.channel else ""
    asked = f' (answering {hit.asked_by or "someone"}: "{truncate(hit.asked, 120)}")'
    line = (
        f'{when}{who} said{where}{asked if hit.asked else ""}: "{truncate(hit.text, _QUOTE_MAX)}"'
    )
    line = line[0].upper() + line[1:]
    return f"{line} <{hit.url}>" if hit.url.startswith("https://") else line
