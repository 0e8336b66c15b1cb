"""How recalled hits enter the reply prompt: one `<recalled>` element per hit, its lines a
short transcript the model (and the offline provider) can answer from.

    <recalled hit="1" date="Mon 8 May 2023" time="14:05" channel="general"
      link="https://discord.com/channels/G/C/M">
    Alex: how was your weekend?
    Sam [found; yesterday = Sun 7 May 2023]: Yesterday we finally fixed the boat
    Alex: about time!
    </recalled>
    <recalled hit="2" kind="summary" date="Thu 6 July 2023">
    Sam: ...
    </recalled>
    <recalled hit="3" kind="more">
    Sam [Tue 2 May 2023]: signed up for a rowing course
    Alex [Sun 4 June 2023]: the boat needs a new coat of paint
    </recalled>

(the element's attributes on one line in the prompt). `hit` numbers the hits best first; the
first FULL_HITS message hits are each an element whose lines are its exchange
(memory/recall/_exchange.py) in the order they were said, each `name: text` on a line of its own
(a message's own line breaks become " / ", so no line can pose as another speaker's). The match,
the line the search found, is marked `[found]` when the hit has other lines; the date, time,
channel and link on the element are the match's; a line said on another day than its match
carries its own date, a line holding a relative date what it meant (`yesterday = ...`), both in
its brackets. Only the first LINKED_HITS hits carry a link; `channel` is left out when its name
is not known. A transcript repeats no attribute or closing tag per line: the tokens saved are
lines recalled (LoCoMo-dev, issue 43). A hit whose text is already in a member's memories is
left out (unless it resolves a relative date); every full hit's nearest turns come before the
rest of any exchange, and hits stop where the token budget does (a line is never cut, never
repeated). Every later message hit is its found line alone (a reply's search reads no exchange
for it: `in_context`), all of them in one `kind="more"` element, best first, each line with its
date in its brackets: a line costs its words and a date, not an element.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from memory.core.tokens import estimate_tokens
from memory.recall import RecallHit
from prompts.loader import Raw, element, escape_body, join

# Hits whose match carries its jump link: the best ones, those a reply cites. A link is about 25
# tokens; on every hit, links took the room of lines that carry answers (LoCoMo-dev, issue 43).
LINKED_HITS = 2
# Hits that come with their exchanges; each later message hit is its found line alone, all of
# them in one element (each line dated). On LoCoMo-dev the evidence a later hit carries is
# mostly its found line: more hits found alone carried more of it than fewer with their
# exchanges (multi-hop 0.303 -> 0.366 with 20 hits, bench/locomo.py, issue 43).
FULL_HITS = 4
_NAME_BREAKS = re.compile(r"[\[\]:\r\n]+")


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _speaker(name: str) -> str:
    """A display name as a transcript line's speaker: no brackets or colons, which would blur
    where the name ends."""
    return " ".join(_NAME_BREAKS.sub(" ", name).split()) or "someone"


def _one_line(text: str) -> str:
    return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def _said(line: RecallHit, lead_day: str | None, *, found: bool) -> str:
    """One transcript line, escaped: `name [notes]: text`."""
    notes = ["found"] if found else []
    if line.day_label != lead_day:
        notes.append(line.day_label)
    notes.extend(line.dates)
    speaker = _speaker(line.author_name)
    if notes:
        speaker += f" [{'; '.join(notes)}]"
    return escape_body(f"{speaker}: {_one_line(line.text)}")


def _transcript(said: list[str]) -> Raw:
    """An element's body: its lines, each on a line of its own."""
    return Raw("\n" + "\n".join(said) + "\n")


def _hit_element(number: int, hit: RecallHit, lines: list[RecallHit], guild_id: int) -> Raw:
    """Hit `number`'s element: the match's place in its attributes, its lines as a transcript."""
    said = [
        _said(line, hit.day_label, found=len(lines) > 1 and line.side == "match") for line in lines
    ]
    return element(
        "recalled",
        _transcript(said),
        hit=number,
        kind=None if hit.kind == "message" else hit.kind,
        date=hit.day_label,
        time=hit.at.strftime("%H:%M") if hit.at else None,
        channel=hit.channel_name,
        link=hit.jump_url(guild_id) if number <= LINKED_HITS else None,
    )


def hit_lines(hit: RecallHit) -> list[RecallHit]:
    """The hit and its exchange's lines in the order they were said."""
    return sorted([hit, *hit.context], key=lambda line: line.message_id or 0)


def render_recalled(
    hits: Iterable[RecallHit], guild_id: int, *, budget: int, known: Iterable[str] = ()
) -> tuple[Raw, list[tuple[int, RecallHit]]]:
    """The `<recalled>` elements of the hits that fit `budget` tokens and are not already in
    `known` (the member contexts in the prompt), and the (hit number, line) pairs rendered.
    The first FULL_HITS hits come with the nearest line of each neighbouring turn (tier 1: the
    question a match answers, the answer it got); every later message hit is its found line
    alone (with any match merged into it), together in one `kind="more"` element; then, while
    the budget lasts, the rest of the full hits' exchanges. A line is rendered once."""
    packing = _Packing(guild_id, budget, known)
    for hit in hits:
        packing.add(hit)
    packing.fill()
    return packing.rendered()


class _Packing:
    """The hits chosen so far, full (with their exchanges) or more (found lines alone), the
    lines they show and the tokens they take."""

    def __init__(self, guild_id: int, budget: int, known: Iterable[str]) -> None:
        self.guild_id = guild_id
        self.budget = budget
        self.seen = [_normal(text) for text in known if text]
        self.full: list[tuple[RecallHit, list[RecallHit]]] = []
        self.more: list[RecallHit] = []
        self.shown: set[tuple[str, int | None, str]] = set()
        self.used = 0

    def add(self, hit: RecallHit) -> None:
        said = _normal(hit.text)
        # Already in a member's memories: left out, unless it resolves a relative date (the
        # memories say "yesterday I ...", not which day that was).
        if said and not hit.dates and any(said in text for text in self.seen):
            return
        if _key(hit) in self.shown:
            return
        full = len(self.full) < FULL_HITS or hit.kind != "message"
        tier = 1 if full else 0
        core = [hit, *(c for c in hit.context if c.tier <= tier and _key(c) not in self.shown)]
        cost = self._cost(hit, core, full)
        if self.used + cost > self.budget:  # the hit alone may still fit
            core, cost = [hit], self._cost(hit, [hit], full)
        if self.used + cost > self.budget:
            return
        if full:
            self.full.append((hit, core))
        else:
            self.more.extend(core)
        self.shown.update(_key(line) for line in core)
        self.used += cost
        self.seen.append(said)

    def _cost(self, hit: RecallHit, lines: list[RecallHit], full: bool) -> int:
        if full:
            return _frame_cost(len(self.full) + 1, hit, self.guild_id) + _cost(lines, hit.day_label)
        return _cost(lines, None) + (0 if self.more else _MORE_FRAME)

    def fill(self) -> None:
        """The rest of the full hits' exchanges, nearest lines first, while the budget lasts."""
        for hit, lines in self.full:
            for line in sorted(hit.context, key=lambda c: (c.tier, _distance(c, hit))):
                cost = _cost([line], hit.day_label)
                if _key(line) not in self.shown and self.used + cost <= self.budget:
                    lines.append(line)
                    self.shown.add(_key(line))
                    self.used += cost

    def rendered(self) -> tuple[Raw, list[tuple[int, RecallHit]]]:
        fragments: list[Raw] = []
        lines: list[tuple[int, RecallHit]] = []
        for number, (hit, said) in enumerate(self.full, start=1):
            in_order = hit_lines(replace(hit, context=tuple(said[1:])))
            fragments.append(_hit_element(number, hit, in_order, self.guild_id))
            lines.extend((number, line) for line in in_order)
        if self.more:
            number = len(self.full) + 1
            fragments.append(_more_element(number, self.more))
            lines.extend((number, line) for line in self.more)
        return (join(fragments) if fragments else Raw("")), lines


def _more_element(number: int, lines: list[RecallHit]) -> Raw:
    """The later hits' found lines, each on its own date: `name [date]: text`."""
    said = [_said(line, None, found=False) for line in lines]
    return element("recalled", _transcript(said), hit=number, kind="more")


def _distance(line: RecallHit, hit: RecallHit) -> int:
    return abs((line.message_id or 0) - (hit.message_id or 0))


def _key(line: RecallHit) -> tuple[str, int | None, str]:
    return (line.kind, line.message_id, line.text if line.message_id is None else "")


def _frame_cost(number: int, hit: RecallHit, guild_id: int) -> int:
    """Tokens of hit `number`'s element without its lines."""
    return estimate_tokens(_hit_element(number, hit, [], guild_id)) + 1


def _cost(lines: list[RecallHit], lead_day: str | None) -> int:
    """Tokens of `lines` as transcript lines of a hit whose match was said on `lead_day` (the
    match counted as marked, whether or not its hit ends with other lines)."""
    return sum(
        estimate_tokens(_said(line, lead_day, found=line.side == "match")) + 1 for line in lines
    )


def recalled_inputs(lines: list[tuple[int, RecallHit]], guild_id: int) -> list[dict[str, object]]:
    """The rendered lines as structured inputs (what an offline provider reads without
    parsing the prompt)."""
    return [
        {
            "hit": number,
            "kind": line.kind,
            "role": line.side,
            "date": line.day_label,
            "author": line.author_name,
            "channel": line.channel_name,
            "link": line.jump_url(guild_id),
            "dates": list(line.dates),
            "text": line.text,
        }
        for number, line in lines
    ]


# Tokens of the "more" element's own tags (its lines counted apart).
_MORE_FRAME = estimate_tokens(_more_element(99, [])) + 1
