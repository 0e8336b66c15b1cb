"""How recalled hits enter the reply prompt: one `<recalled>` element per line, attributes
the model (and the offline provider) can answer from.

    <recalled hit="1" author="Alex">how was your weekend?</recalled>
    <recalled hit="1" role="match" date="Mon 8 May 2023" time="14:05" author="Sam"
      channel="general" link="https://discord.com/channels/G/C/M"
      dates="yesterday = Sun 7 May 2023">Yesterday we finally fixed the boat</recalled>
    <recalled hit="1" author="Alex">about time!</recalled>
    <recalled hit="2" kind="summary" role="match" date="Thu 6 July 2023" author="Sam"
      >...</recalled>

(each element on one line in the prompt).
`hit` numbers the hits best first; the lines of one hit are its exchange (memory/recall/
_exchange.py) and come in the order they were said (the match marked `role="match"`); they
share the match's channel, link, time and day, given once on it (a line said on another day
than its match carries its own date); only the first LINKED_HITS hits carry a link. `channel`
is left out when its name is not known, `dates` when the line holds no relative date. A hit
whose text is already in a member's memories is left out (unless it resolves a relative date);
every hit's nearest turns come before the rest of any exchange, and hits stop where the token
budget does (a line is never cut, never repeated).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from memory.core.tokens import estimate_tokens
from memory.recall import RecallHit
from prompts.loader import Raw, element, join

# Hits whose match carries its jump link: the best ones, those a reply cites. A link is about 25
# tokens; on every hit, links took the room of lines that carry answers (LoCoMo-dev, issue 43).
LINKED_HITS = 2


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _line(number: int, hit: RecallHit, guild_id: int, lead_day: str | None = None) -> Raw:
    # The lines of a hit's exchange share its channel, and mostly its day: given once, on the
    # match (the link points at it). Tokens saved here are more lines recalled.
    context = hit.side != "match"
    return element(
        "recalled",
        hit.text,
        hit=number,
        kind=None if context or hit.kind == "message" else hit.kind,
        role=None if context else hit.side,
        date=None if context and hit.day_label == lead_day else hit.day_label,
        time=None if context or not hit.at else hit.at.strftime("%H:%M"),
        author=hit.author_name,
        channel=None if context else hit.channel_name,
        link=None if context or number > LINKED_HITS else hit.jump_url(guild_id),
        dates="; ".join(hit.dates) or None,
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
        cost = _cost(core, guild_id, hit.day_label, number)
        if used + cost > budget:  # the hit alone may still fit
            core, cost = [hit], _cost([hit], guild_id, hit.day_label, number)
        if used + cost > budget:
            continue
        chosen.append((hit, core))
        shown.update(_key(line) for line in core)
        used += cost
        seen.append(said)
    for number, (hit, lines) in enumerate(chosen, start=1):  # the rest, nearest lines first
        for line in sorted(
            hit.context, key=lambda c: (c.tier, abs((c.message_id or 0) - (hit.message_id or 0)))
        ):
            if _key(line) in shown:
                continue
            cost = _cost([line], guild_id, hit.day_label, number)
            if used + cost <= budget:
                lines.append(line)
                shown.add(_key(line))
                used += cost
    rendered = [
        (number, line)
        for number, (hit, lines) in enumerate(chosen, start=1)
        for line in hit_lines(replace(hit, context=tuple(lines[1:])))
    ]
    days = {number: hit.day_label for number, (hit, _) in enumerate(chosen, start=1)}
    fragments = [_line(n, line, guild_id, days[n]) for n, line in rendered]
    return (join(fragments) if fragments else Raw("")), rendered


def _key(line: RecallHit) -> tuple[str, int | None, str]:
    return (line.kind, line.message_id, line.text if line.message_id is None else "")


def _cost(lines: list[RecallHit], guild_id: int, lead_day: str, number: int) -> int:
    """Tokens of `lines` as rendered in hit `number`, whose match was said on `lead_day`."""
    return sum(estimate_tokens(_line(number, line, guild_id, lead_day)) + 1 for line in lines)


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
