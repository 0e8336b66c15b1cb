"""Exchanges: the unit a recalled message brings along.

A line found by its words is often half of what answers a question: the words sit in one turn
and the answer in the next ("seen any good films lately?" / "that one about the old mill,
twice"), or the answer runs over two messages of one speaker. So a hit comes with its
exchange, read in its channel within its episode (db/recall_exchange.py):

- before it, the turn it answers: the message it replies to (Discord's reply reference) when
  there is one, else the nearest run of lines by another speaker (with the hit author's own
  line just before it, when their turn started there);
- after it, the turns that answer it: the replies to it first, then its author's own next
  lines (a turn said over two messages), then the next run of lines by another speaker, and
  when that run asks something back, the run that answers it.

Every line gets a tier: 1 for the nearest line of each neighbouring turn (what a reply prompt
keeps first), 2 for the rest (kept while the budget lasts). Hits whose exchanges share a line
merge into one (the best ranked leads): a line is never shown twice.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from db.recall import MessageMatch
from db.recall_exchange import Around

# Lines of one speaker's run taken as their turn.
TURN_LINES = 2
# The hit author's own lines right before it taken as the start of their turn.
OWN_BEFORE = 1
# Lines an exchange holds besides its hit(s), at most.
MAX_LINES = 7


@dataclass(slots=True)
class Exchange:
    """A hit (the best ranked match) and the lines around it: (line, tier), tier 0 for another
    match merged into it."""

    hit: MessageMatch
    lines: dict[int, tuple[MessageMatch, int]] = field(default_factory=dict)

    @property
    def ids(self) -> set[int]:
        return {self.hit.message_id, *self.lines}

    def add(self, line: MessageMatch, tier: int) -> None:
        if line.message_id == self.hit.message_id:
            return
        held = self.lines.get(line.message_id)
        if held is None or tier < held[1]:
            self.lines[line.message_id] = (line, tier)


def _match(row: Around) -> MessageMatch:
    return MessageMatch(
        row.message_id,
        row.channel_id,
        row.author_id,
        row.created_at,
        row.content,
        0.0,
        row.reply_to_id,
    )


def _runs(lines: Sequence[MessageMatch]) -> list[list[MessageMatch]]:
    """Lines (nearest first) as runs of one speaker each."""
    runs: list[list[MessageMatch]] = []
    for line in lines:
        if runs and runs[-1][0].author_id == line.author_id:
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def asks(line: MessageMatch) -> bool:
    """A line whose point is a question (it ends asking): it wants an answer, and on its own
    it tells what its author wants to know, not what they did."""
    return line.content.rstrip().endswith("?")


def _before(hit: MessageMatch, rows: list[Around]) -> list[tuple[MessageMatch, int]]:
    """The turn the hit answers, nearest line first."""
    answered = [_match(r) for r in rows if r.rel == "answered"]
    if answered:
        return [(answered[0], 1)]
    lines = sorted((_match(r) for r in rows if r.rel == "before"), key=lambda m: -m.message_id)
    runs = _runs(lines)
    taken: list[tuple[MessageMatch, int]] = []
    if runs and runs[0][0].author_id == hit.author_id:
        taken += [(line, 2) for line in runs.pop(0)[:OWN_BEFORE]]
        if taken and not runs:
            return taken
        if taken and asks(hit):  # the hit asks after its own opening line: that turn is enough
            return taken
    if runs:
        taken += [(line, 1 if n == 0 else 2) for n, line in enumerate(runs[0][:TURN_LINES])]
    return taken


def _after(hit: MessageMatch, rows: list[Around]) -> list[tuple[MessageMatch, int]]:
    """The turns that answer the hit, in the order they were said."""
    replies = sorted((_match(r) for r in rows if r.rel == "reply"), key=lambda m: m.message_id)
    taken = [(line, 1 if n == 0 else 2) for n, line in enumerate(replies)]
    lines = sorted((_match(r) for r in rows if r.rel == "after"), key=lambda m: m.message_id)
    runs = _runs(lines)
    if runs and runs[0][0].author_id == hit.author_id:  # the hit's turn goes on
        taken += [(line, 1) for line in runs.pop(0)[:TURN_LINES]]
    asking = asks(hit) or bool(taken and asks(taken[-1][0]))
    while runs:
        run = runs.pop(0)[:TURN_LINES]
        taken += [(line, 1 if n == 0 or asking else 2) for n, line in enumerate(run)]
        if not asks(run[-1]):  # a turn that asks back is answered by the next one
            break
        asking = True
    return taken


def _answering(hit: MessageMatch, lines: list[tuple[MessageMatch, int]]) -> list[MessageMatch]:
    """The first turn after a hit by someone else: who answered it."""
    after = sorted((line for line, _ in lines if line.message_id > hit.message_id), key=_id)
    others = [line for line in after if line.author_id != hit.author_id]
    return [line for line in others if line.author_id == others[0].author_id][:TURN_LINES]


def _id(line: MessageMatch) -> int:
    return line.message_id


def exchanges(
    hits: Iterable[MessageMatch],
    rows: Iterable[Around],
    *,
    limit: int,
    named: Collection[int] = (),
) -> list[Exchange]:
    """At most `limit` exchanges of `hits` (best first), hits sharing a line merged into the
    best ranked of them; lines beyond MAX_LINES (the farthest, the least needed) left out.
    With members `named` in the question, the exchanges they took part in (they said the hit,
    or the hit asked and they answered) come first: "where did Sam go?" is answered
    where Sam was asked, even when another line says the question's words better."""
    by_hit: dict[int, list[Around]] = {}
    for row in rows:
        by_hit.setdefault(row.hit_id, []).append(row)
    planned = []
    for hit in hits:
        mine = by_hit.get(hit.message_id, [])
        lines = _before(hit, mine) + _after(hit, mine)
        lines = sorted(lines, key=lambda item: (item[1], abs(item[0].message_id - hit.message_id)))
        lines = lines[:MAX_LINES]
        took_part = hit.author_id in named or (
            asks(hit) and any(line.author_id in named for line in _answering(hit, lines))
        )
        planned.append((not took_part, hit, lines))
    if named:
        planned.sort(key=lambda item: item[0])  # stable: rank order within each part
    made: list[Exchange] = []
    for _, hit, lines in planned:
        ids = {hit.message_id} | {line.message_id for line, _ in lines}
        sharing = [ex for ex in made if ex.ids & ids]
        if not sharing:
            if len(made) >= limit:
                continue
            sharing = [Exchange(hit)]
            made.append(sharing[0])
        into = sharing[0]
        into.add(hit, 0)
        for line, tier in lines:
            into.add(line, tier)
        for other in sharing[1:]:  # this hit joins two exchanges: they become one
            into.add(other.hit, 0)
            for line, tier in other.lines.values():
                into.add(line, tier)
            made.remove(other)
    return made
