"""The values the facts service works with: its settings, its errors (safe to show a member),
what a change did, and what one planned change will store."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from db import facts as store
from memory.core.config_fields import FromSettings, setting
from memory.core.models import Member
from memory.llm import PromptMember


class FactError(Exception):
    """A fact operation was refused or failed; the message is safe to show a member."""


class StatementTooLong(FactError):
    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"statement has {length} characters, the limit is {limit}")
        self.length = length
        self.limit = limit


class FactsFull(FactError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the memory would exceed {limit} characters")
        self.limit = limit


class FactsUnavailable(FactError):
    """The LLM could not produce a merge; nothing was changed."""


@dataclass(frozen=True, slots=True)
class FactChange:
    """What an operation did: `changed` False means the blob was left as it was."""

    guild_id: int
    user_id: int
    old_blob: str
    new_blob: str
    version: int
    changed: bool
    found: bool = True
    history_id: int | None = None
    unforgotten: int = 0
    # Old sentences let go of to stay within FACTS_MAX_CHARS (the member is told which).
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Provenance:
    actor_id: int | None
    command: str
    source_message_id: int | None
    operation: str


@dataclass(frozen=True, slots=True)
class FactsConfig:
    """The settings the facts service reads (FACT_STATEMENT_MAX_CHARS, FACTS_MAX_CHARS, and the
    LLM timeout that bounds a merge made while holding the member's row lock)."""

    fact_statement_max_chars: int = setting("fact_statement_max_chars")
    facts_max_chars: int = setting("facts_max_chars")
    llm_timeout_seconds: float = setting("llm_timeout_seconds")

    from_settings = FromSettings()


@dataclass(frozen=True, slots=True)
class Plan:
    """What to store: the new blob plus forgotten statements to lift or add."""

    new_blob: str
    statement: str
    lift: tuple[int, ...] = ()
    forget: str | None = None
    found: bool = True
    reverts_id: int | None = None
    # The member's names, ignored when matching forgotten statements (undo knows only ids).
    names: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


Compute = Callable[[str, list[store.ForgottenRecord]], Awaitable[Plan]]


def prompt_member(member: Member) -> PromptMember:
    """The member as prompts see them: current name first, every other name as an alias."""
    names = member.names
    return PromptMember(user_id=member.user_id, name=member.display_name, aliases=list(names[1:]))
