"""Turn a model's text into a validated pydantic object, tolerating the usual packaging.

Real models wrap JSON in code fences, prefix it with chatter or (small local models) ignore
the schema entirely. Every provider funnels its text through `parse_structured`, so the
tolerance rules are the same everywhere and a failure is always `LLMBadOutput`.
"""

from __future__ import annotations

import json
import logging
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memory.llm.providers._base import LLMBadOutput

_log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

_DECODER = json.JSONDecoder()


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first complete JSON object in `text` (fences and chatter around it ignored)."""
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _single_text_field(schema: type[BaseModel]) -> str | None:
    """Name of the only field when the schema is one required string (like TextOutput)."""
    fields = schema.model_fields
    if len(fields) != 1:
        return None
    name, info = next(iter(fields.items()))
    return name if info.annotation is str and info.is_required() else None


def _describe(error: Exception | None) -> str:
    """Which fields failed and why, without the values (they may quote members' chat)."""
    if not isinstance(error, ValidationError):
        return "invalid"
    problems = [
        f"{'.'.join(str(part) for part in item['loc']) or 'root'}: {item['msg']}"
        for item in error.errors(include_input=False, include_url=False)
    ]
    return "; ".join(problems[:3])


def parse_structured(text: str | None, schema: type[T], *, what: str = "answer") -> T:
    """Validate `text` into `schema`; raise LLMBadOutput with a short reason otherwise."""
    if text is None or not text.strip():
        raise LLMBadOutput(f"{what}: empty answer, expected {schema.__name__}")
    stripped = text.strip()
    candidates: list[Any] = []
    try:
        candidates.append(json.loads(stripped))
    except json.JSONDecodeError:
        found = extract_json_object(stripped)
        if found is not None:
            candidates.append(found)
    last_error: Exception | None = None
    for candidate in candidates:
        try:
            return schema.model_validate(candidate)
        except ValidationError as exc:
            last_error = exc
    field = _single_text_field(schema)
    if field is not None and not candidates and "{" not in stripped:
        # A small model that ignored the JSON instruction but answered in prose: the prose is
        # the answer. Text with braces is more likely truncated JSON, so it is not guessed at.
        return schema.model_validate({field: stripped})
    reason = "no JSON object" if not candidates else f"schema mismatch ({_describe(last_error)})"
    _log.debug("unparseable %s: %.200r", what, stripped)
    raise LLMBadOutput(f"{what}: {reason}, expected {schema.__name__}"[:500])


def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form OpenAI's strict structured output accepts.

    Strict mode wants every property required (optional ones nullable instead),
    `additionalProperties: false` on every object and no `default` keywords.
    """
    document = schema.model_json_schema()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("default", None)
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(document)
    return document
