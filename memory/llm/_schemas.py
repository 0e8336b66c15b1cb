"""Pydantic models for what goes into and comes out of memory LLM tasks.

Output models double as the JSON schema sent to providers for structured output.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field

IntentKind = Literal["remember", "remember_this", "forget", "whois", "none"]


class PromptMember(BaseModel):
    """A member as a prompt sees them: id plus the names people use for them."""

    user_id: int
    name: str
    aliases: list[str] = Field(default_factory=list)


class PromptMessage(BaseModel):
    """One chat message ready for a prompt: mentions already rendered as names."""

    message_id: int
    reply_to_id: int | None = None
    timestamp: datetime
    author_id: int
    author_name: str
    content: str


class DailySummaryItem(BaseModel):
    user_id: str = Field(description="the target member's id, as given in <targets>")
    summary: str = Field(description="third-person summary of the member's day; empty if none")


class LearnedItem(BaseModel):
    """A durable statement about a member found in chat (home, job, allergy, ...)."""

    user_id: str = Field(description="the member the statement is about, as given in <targets>")
    subject: str = Field(
        description="what it is about: home, origin, job, family, pet, health,"
        " hobby, plan, preference (add ':detail' when several can hold)"
    )
    statement: str = Field(
        description="one short third-person sentence, e.g. 'Sam lives in Madrid.'"
    )


class DailySummaries(BaseModel):
    summaries: list[DailySummaryItem]
    facts: list[LearnedItem] = Field(default_factory=list)


class TextOutput(BaseModel):
    text: str


class ForgetOutput(BaseModel):
    found: bool
    blob: str


class Intent(BaseModel):
    """What a freeform message addressed to the bot asks for."""

    kind: IntentKind
    target: str | None = None
    statement: str | None = None


class DayText(BaseModel):
    day: date
    text: str
