"""Structured answers in the shapes real models produce them."""

from __future__ import annotations

import pytest

from memory.llm import LLMBadOutput
from memory.llm.providers import parse_structured, strict_json_schema
from memory.llm.tasks import ForgetOutput, Intent, TextOutput


@pytest.mark.parametrize(
    "text",
    [
        '{"found": true, "blob": "alice lives in Berlin."}',
        '```json\n{"found": true, "blob": "alice lives in Berlin."}\n```',
        'Here is the result: {"found": true, "blob": "alice lives in Berlin."} Hope it helps!',
        '{not json} then {"found": true, "blob": "alice lives in Berlin."}',
    ],
)
def test_json_is_found_in_common_wrappings(text: str) -> None:
    assert parse_structured(text, ForgetOutput) == ForgetOutput(
        found=True, blob="alice lives in Berlin."
    )


@pytest.mark.parametrize(
    "text",
    ["", "   ", '{"found": tru', '{"blob": "no found field"}', "I can't help with that."],
)
def test_unusable_answers_are_bad_output(text: str) -> None:
    with pytest.raises(LLMBadOutput):
        parse_structured(text, ForgetOutput)


def test_prose_is_accepted_only_for_single_text_schemas() -> None:
    assert parse_structured("alice had a calm day.", TextOutput).text == "alice had a calm day."
    with pytest.raises(LLMBadOutput):
        parse_structured('{"text": "alice had a cal', TextOutput)  # truncated JSON is not prose


def test_strict_schema_requires_every_property() -> None:
    schema = strict_json_schema(Intent)
    assert schema["required"] == ["kind", "target", "statement"]
    assert schema["additionalProperties"] is False
    assert "default" not in schema["properties"]["target"]
