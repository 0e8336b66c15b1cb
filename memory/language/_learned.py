"""What the learner gives back: one statement about a member and the subject it is on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Learned:
    """One learned statement and its subject key ("home", "likes:hiking", "named:sister"): a
    later statement on the same subject replaces it."""

    subject: str
    statement: str
