"""Pydantic models for what goes into and comes out of memory LLM tasks.

Output models double as the JSON schema sent to providers for structured output.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

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


class LearnedItem(BaseModel):
    """A durable statement about a member found in chat (home, job, allergy, ...)."""

    user_id: str = Field(description="the member the statement is about, named as in the chat")
    subject: str = Field(
        description="what it is about: home, origin, job, family, pet, health,"
        " hobby, plan, preference (add ':detail' when several can hold)"
    )
    statement: str = Field(
        description="one short third-person sentence, e.g. 'Sam lives in Madrid.'"
    )


class DailySummaries(BaseModel):
    """Notes or summaries for many members in one answer: one `name: text` string each (a
    JSON object per member spent about eleven tokens on keys and braces; this spends four)."""

    summaries: list[str] = Field(
        description='one "name: text" per member, named as the prompt names them'
    )
    facts: list[LearnedItem] = Field(default_factory=list)

    @field_validator("summaries", mode="before")
    @classmethod
    def _objects_as_lines(cls, value: object) -> object:
        """A model that ignores the schema and answers `{"user_id": k, "summary": t}` objects
        (the earlier shape) still gets its answer read, as `k: t`."""
        if not isinstance(value, list):
            return value
        return [
            f"{item.get('user_id', '')}: {item.get('summary', '')}"
            if isinstance(item, dict)
            else item
            for item in value
        ]


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
