"""Text rules for fact statements: loose comparison and forgotten-statement matching.

Pure functions for the facts service (what may be stored); which new names a statement
introduces is `memory.language.identity_alias`. Whether a sentence restates a statement is
decided by `memory.language.restates`, the rule the summaries and the offline provider use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.language import drop_restating, restates


def normalise_statement(statement: str) -> str:
    """Compare statements loosely: case, spacing and end punctuation do not matter."""
    return " ".join(re.sub(r"[.!?;,\"'`“”‘’]+", " ", statement.casefold()).split())


def covers(statement: str, forgotten: str, names: Sequence[str] = ()) -> bool:
    """Remembering `statement` explicitly lifts the forget of `forgotten` when it restates it:
    the same rule that strips forgotten statements, so whatever would be stripped is lifted."""
    return restates(statement, forgotten, names=names)


def strip_forgotten(blob: str, forgotten: Sequence[str], names: Sequence[str] = ()) -> str:
    """Drop sentences of `blob` that restate a forgotten statement: a last line of defence
    when a model ignores the "never include" constraint."""
    return drop_restating(blob, forgotten, names=names)[0]
