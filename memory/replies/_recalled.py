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

(the element's attributes on one line in the prompt). `hit` numbers the hits best first; the
lines of one hit are its exchange (memory/recall/_exchange.py) in the order they were said, each
`name: text` on a line of its own (a message's own line breaks become " / ", so no line can
pose as another speaker's). The match, the line the search found, is marked `[found]` when the
hit has other lines; the date, time, channel and link on the element are the match's; a line
said on another day than its match carries its own date, a line holding a relative date what
it meant (`yesterday = ...`), both in its brackets. Only the first LINKED_HITS hits carry a
link; `channel` is left out when its name is not known. A transcript repeats no attribute or
closing tag per line: the tokens saved are lines recalled (LoCoMo-dev, issue 43). A hit
whose text is already in a member's memories is left out (unless it resolves a relative date);
every hit's nearest turns come before the rest of any exchange, and hits stop where the token
budget does (a line is never cut, never repeated).
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


def _hit_element(number: int, hit: RecallHit, lines: list[RecallHit], guild_id: int) -> Raw:
    """Hit `number`'s element: the match's place in its attributes, its lines as a transcript."""
    said = [
        _said(line, hit.day_label, found=len(lines) > 1 and line.side == "match") for line in lines
    ]
    return element(
        "recalled",
        Raw("\n" + "\n".join(said) + "\n"),
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
    Hits come first with the nearest line of each neighbouring turn (tier 1: the question a
    match answers, the answer it got), then, while the budget lasts, the rest of their
    exchanges; a line is rendered once."""
    seen = [_normal(text) for text in known if text]
    chosen: list[tuple[RecallHit, list[RecallHit]]] = []
    shown: set[tuple[str, int | None, str]] = set()
    used = 0
    for hit in hits:
        said = _normal(hit.text)
        # Already in a member's memories: left out, unless it resolves a relative date (the
        # memories say "yesterday I ...", not which day that was).
        if said and not hit.dates and any(said in text for text in seen):
            continue
        if _key(hit) in shown:
            continue
        core = [hit, *(line for line in hit.context if line.tier <= 1 and _key(line) not in shown)]
        number = len(chosen) + 1
        frame = _frame_cost(number, hit, guild_id)
        cost = frame + _cost(core, hit.day_label)
        if used + cost > budget:  # the hit alone may still fit
            core, cost = [hit], frame + _cost([hit], hit.day_label)
        if used + cost > budget:
            continue
        chosen.append((hit, core))
        shown.update(_key(line) for line in core)
        used += cost
        seen.append(said)
    for hit, lines in chosen:  # the rest, nearest lines first
        for line in sorted(
            hit.context, key=lambda c: (c.tier, abs((c.message_id or 0) - (hit.message_id or 0)))
        ):
            if _key(line) in shown:
                continue
            cost = _cost([line], hit.day_label)
            if used + cost <= budget:
                lines.append(line)
                shown.add(_key(line))
                used += cost
    fragments: list[Raw] = []
    rendered: list[tuple[int, RecallHit]] = []
    for number, (hit, lines) in enumerate(chosen, start=1):
        in_order = hit_lines(replace(hit, context=tuple(lines[1:])))
        fragments.append(_hit_element(number, hit, in_order, guild_id))
        rendered.extend((number, line) for line in in_order)
    return (join(fragments) if fragments else Raw("")), rendered


def _key(line: RecallHit) -> tuple[str, int | None, str]:
    return (line.kind, line.message_id, line.text if line.message_id is None else "")


def _frame_cost(number: int, hit: RecallHit, guild_id: int) -> int:
    """Tokens of hit `number`'s element without its lines."""
    return estimate_tokens(_hit_element(number, hit, [], guild_id)) + 1


def _cost(lines: list[RecallHit], lead_day: str) -> int:
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
