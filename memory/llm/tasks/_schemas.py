"""Pydantic models for what goes into and comes out of memory LLM tasks.

Output models double as the JSON schema sent to providers for structured output.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

IntentKind = Literal["remember", "remember_this", "forget", "whois", "none"]


def _bare_schema(schema: dict[str, Any]) -> None:
    """No titles ("title": "User Id" per field) and no docstring in an answer's JSON schema: a
    provider sends the schema beside every prompt (Gemini bills it as input), and they tell
    the model nothing the field names and descriptions do not."""
    schema.pop("title", None)
    schema.pop("description", None)
    for field_schema in schema.get("properties", {}).values():
        field_schema.pop("title", None)


class Answer(BaseModel):
    """What a model answers: its JSON schema is what the provider is asked to follow."""

    model_config = ConfigDict(json_schema_extra=_bare_schema)


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


class LearnedItem(Answer):
    """A durable statement about a member found in chat (home, job, allergy, ...)."""

    user_id: str = Field(description="the member it is about, named as in the chat")
    subject: str = Field(
        description="home, origin, job, family, pet, health, hobby, plan, preference"
        " (':detail' when several can hold)"
    )
    statement: str = Field(description="one short third-person sentence")


class DailySummaries(Answer):
    """Notes or summaries for many members in one answer: one `name: text` string each (a
    JSON object per member spent about eleven tokens on keys and braces; this spends four)."""

    summaries: list[str] = Field(description='one "name: text" per member')
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


class TextOutput(Answer):
    text: str


class ForgetOutput(Answer):
    found: bool
    blob: str


class Intent(Answer):
    """What a freeform message addressed to the bot asks for."""

    kind: IntentKind
    target: str | None = None
    statement: str | None = None
