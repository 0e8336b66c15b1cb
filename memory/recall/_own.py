"""A named member's own lines on what is asked, beyond the hits.

"What activities does Melanie do?" is answered by lines Melanie said over months ("signed up
for a pottery class", "off to go swimming with the kids", "we went camping"), each a match of
its own that ranks below the first dozen: the hits, each with its exchange, fill a reply's
recall budget first. On LoCoMo-dev (bench/locomo.py) 97% of the evidence of such questions
is the named member's own words. So the search's matches by that member that no hit holds
(the full-text and the nearest-in-meaning lanes already ranked them: no query more) come back
too, alone, without their exchanges: a short line each, so a reply holds several of them in
the room of one hit (memory/replies/_recalled.py).

Only when the question names exactly one member. (A lookup of its own, the question against
that member's messages alone, found no more evidence on LoCoMo-dev and cost a reply's search
two more queries: issue 43.)
"""

from __future__ import annotations

from collections.abc import Collection

from db.recall import MessageMatch


def beyond_the_hits(
    matches: list[MessageMatch], named: tuple[int, ...], shown: Collection[int], wanted: int
) -> list[MessageMatch]:
    """Up to `wanted` of `matches` (best first, already filtered for the reader and what was
    forgotten) said by the one member `named`, that no hit shows (`shown` message ids)."""
    if wanted < 1 or len(named) != 1:
        return []
    mine = (m for m in matches if m.author_id == named[0] and m.message_id not in shown)
    return [m for _, m in zip(range(wanted), mine, strict=False)]
