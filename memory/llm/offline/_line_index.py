"""Which lines of a day can concern a member, found once per day instead of once per member.

The offline summariser notes every member a stretch concerns: their own lines, replies to
them, lines naming them. Scanning every line with every member's name pattern is members x
lines regex searches: 25 million, 28 s of CPU, for one day of a 10,000-member guild. Indexed
by author, by replied-to author and by the words lines contain, a member's name pattern only
runs on the few lines holding the first word of one of their names.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

_log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+")


class IndexedLine(Protocol):
    @property
    def author_id(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def replied_author_id(self) -> int | None: ...


def fold(word: str) -> str:
    """A word as the index keys it: case-folded, and without the combining dot full folding
    adds to "İ" (a case-insensitive pattern matches "İ" with "i")."""
    return word.casefold().replace("\u0307", "")


@dataclass
class LineIndex:
    """Positions of a day's lines by author, by the author they reply to, and by word."""

    size: int
    by_author: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_reply: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_word: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, lines: Sequence[IndexedLine]) -> LineIndex:
        index = cls(size=len(lines))
        for position, line in enumerate(lines):
            index.by_author[line.author_id].append(position)
            if line.replied_author_id is not None:
                index.by_reply[line.replied_author_id].append(position)
            for word in {fold(word) for word in _WORD.findall(line.text)}:
                index.by_word[word].append(position)
        return index

    def candidates(self, user_id: int, names: Iterable[str]) -> list[int]:
        """Positions, in order, of every line that may concern the member: theirs, replies to
        them, and lines holding the first word of one of their names (a superset: the name
        pattern decides). All lines when a name has no word character to look up."""
        found = set(self.by_author.get(user_id, ()))
        found.update(self.by_reply.get(user_id, ()))
        for name in names:
            name = name.strip()
            if len(name) < 2:
                continue  # too short to be matched as a name at all
            first = _WORD.search(name)
            if first is None:
                return list(range(self.size))
            found.update(self.by_word.get(fold(first.group()), ()))
        return sorted(found)
