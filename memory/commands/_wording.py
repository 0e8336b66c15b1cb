"""The wording of every answer to a memory command, in one place so tone stays consistent.

Answers are polite, say what happened (or did not), and state limits with their numbers.
"""

from __future__ import annotations

import math

from memory.core.models import Member
from memory.facts import FactError, FactsFull, FactsUnavailable, StatementTooLong

_ACTIONS = {
    "forget": "make me forget things about",
    "undo": "undo changes to what I know about",
    "purge": "erase what I know about",
}


class CommandReplies:
    """Reply texts; member names are display names (pings are disabled when sending)."""

    def remembered(self, member: Member, *, is_self: bool) -> str:
        if is_self:
            return "Got it, I'll remember that about you."
        return f"Got it, I'll remember that about {member.display_name}."

    def not_remembered(self, member: Member) -> str:
        return f"{member.display_name} asked not to be remembered, so I keep nothing about them."

    def let_go(self, limit: int, dropped: tuple[str, ...]) -> str:
        shown = "; ".join(dropped)  # every one: a fact let go of is never let go silently
        return f"To stay within {limit} characters I no longer keep: {shown}"

    def attributed(self, member: Member, author: Member) -> str:
        return (
            f"Noted as something {author.display_name} says about {member.display_name}: it "
            f"contradicts what I know, and only {member.display_name} or someone with the "
            "Manage Server permission can change that."
        )

    def alias_added(self, member: Member, alias: str) -> str:
        return f'I\'ll also know "{alias}" means {member.display_name}.'

    def forgotten(self, member: Member) -> str:
        return f"Done, I've forgotten that about {member.display_name}."

    def not_found(self, member: Member) -> str:
        return (
            f"I didn't have that in my notes about {member.display_name}, "
            "but I'll make sure it doesn't come up."
        )

    def undone(self, member: Member, blob: str) -> str:
        if not blob:
            return f"Undone. I now know nothing in particular about {member.display_name}."
        return f"Undone. What I know about {member.display_name} is back to the previous version."

    def nothing_to_undo(self, member: Member) -> str:
        return f"There's nothing to undo for {member.display_name}."

    def know_nothing(self, member: Member) -> str:
        return f"I don't know anything about {member.display_name} yet."

    def verbatim(self, member: Member, memory: str) -> str:
        return f"Here's what I know about {member.display_name}: {memory}"

    def refused(self, kind: str, member: Member) -> str:
        action = _ACTIONS.get(kind, "do that for")
        return (
            f"Sorry, only {member.display_name} or someone with the Manage Server permission "
            f"can {action} {member.display_name}."
        )

    def which_one(self, query: str, candidates: list[str]) -> str:
        shown = candidates[:5]
        more = f" (and {len(candidates) - 5} more)" if len(candidates) > 5 else ""
        listed = "; ".join(shown)
        return (
            f'Several people here go by "{query}": {listed}{more}. '
            "Which one do you mean? Mention them or use their id."
        )

    def unknown(self, query: str) -> str:
        return f'I don\'t know anyone called "{query}" here. Try mentioning them.'

    def reply_needed(self, kind: str) -> str:
        verb = "remember" if kind.startswith("remember") else "forget"
        return f"Reply to the message you want me to {verb}, then ask again."

    def what_to(self, kind: str) -> str:
        verb = "remember" if kind.startswith("remember") else "forget"
        return f"What should I {verb}? Try: remember that alice likes tea."

    def too_long(self, length: int, limit: int) -> str:
        return (
            f"That's too long for me to remember: a fact can be at most {limit} characters "
            f"(yours has {length}). Could you shorten it?"
        )

    def full(self, member: Member, limit: int) -> str:
        return (
            f"My notes about {member.display_name} are full ({limit} characters). "
            "Ask me to forget something about them first."
        )

    def fact_error(self, member: Member, exc: FactError) -> tuple[str, str]:
        """(outcome, reply) for a remember/forget that could not be done."""
        if isinstance(exc, StatementTooLong):
            return "too_long", self.too_long(exc.length, exc.limit)
        if isinstance(exc, FactsFull):
            return "full", self.full(member, exc.limit)
        if isinstance(exc, FactsUnavailable):
            return "failed", self.unavailable()
        return "failed", self.failed(str(exc))

    def unavailable(self) -> str:
        return "I couldn't update my memory just now, so nothing was changed. Please try again."

    def failed(self, reason: str) -> str:
        return f"I couldn't do that: {reason}."

    def slow_down(self, seconds: float) -> str:
        wait = max(1, math.ceil(seconds))
        return f"You're giving me memory commands a bit fast. Please wait {wait}s and try again."
