"""A hit comes with its exchange (issue 34): the line it answers and the turns that answer it,
each line once; with a member named, the exchanges they took part in first."""

from __future__ import annotations

from db.recall import MessageMatch

# With a member named, this many times the kept matches are looked at for their exchanges.
THEIRS_POOL = 3


def one_exchange_each(
    picked: list[MessageMatch], around: dict[int, tuple[MessageMatch, ...]]
) -> list[tuple[MessageMatch, tuple[MessageMatch, ...]]]:
    """Each line once: a line that is a hit itself is not shown again as another hit's
    context, and a context line two hits share stays with the better ranked one."""
    shown = {match.message_id for match in picked}
    kept = []
    for match in picked:
        lines = tuple(n for n in around.get(match.message_id, ()) if n.message_id not in shown)
        shown |= {n.message_id for n in lines}
        kept.append((match, lines))
    return kept


def theirs_first(
    pool: list[MessageMatch],
    kept: list[MessageMatch],
    named: list[int],
    around: dict[int, tuple[MessageMatch, ...]],
) -> list[MessageMatch]:
    """A question about a named member may match someone else's question to them, with the
    member's answer in the turn after it; the same question, asked of several members in
    turn, is one hit (`distinct`). Here that hit becomes the instance whose exchange a named
    member took part in, where there is one. The order of the hits is not changed."""

    def took_part(match: MessageMatch) -> bool:
        lines = around.get(match.message_id, ())
        return match.author_id in named or any(n.author_id in named for n in lines)

    instead: dict[tuple[int, str], MessageMatch] = {}
    for match in pool:
        said = (match.author_id, match.content)
        if said not in instead and took_part(match):
            instead[said] = match
    chosen = []
    for match in kept:
        better = instead.get((match.author_id, match.content))
        chosen.append(match if better is None or took_part(match) else better)
    return chosen
