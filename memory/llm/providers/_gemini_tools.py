"""Gemini function calling for replies: offer the tools, run what the model asks, answer.

Automatic function calling is off (the SDK would run Python callables itself, outside our
budget and telemetry); the loop below runs each call through the `ToolUse` runner, sends the
results back as function responses, and after `max_calls` calls asks for the answer with
function calling set to NONE, so a model cannot loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from google.genai import types

from memory.llm.providers._tools import ToolCall, ToolUse, run_call

Generate = Callable[[list[types.Content], types.GenerateContentConfig], Awaitable[Any]]


@dataclass
class ToolRounds:
    """What the loop ends with: the last response and the tokens of every round."""

    response: Any
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0


def _declarations(use: ToolUse) -> list[types.Tool]:
    return [
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(
                    name=tool.name,
                    description=tool.description,
                    parameters_json_schema=dict(tool.parameters),
                )
                for tool in use.tools
            ]
        )
    ]


def _config(base: types.GenerateContentConfig, use: ToolUse, *, offer: bool) -> Any:
    mode = types.FunctionCallingConfigMode.AUTO if offer else types.FunctionCallingConfigMode.NONE
    return base.model_copy(
        update={
            "tools": _declarations(use),
            "automatic_function_calling": types.AutomaticFunctionCallingConfig(disable=True),
            "tool_config": types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(mode=mode)
            ),
        }
    )


async def generate_with_tools(
    generate: Generate, prompt: str, base: types.GenerateContentConfig, use: ToolUse
) -> ToolRounds:
    contents = [types.Content(role="user", parts=[types.Part.from_text(text=prompt)])]
    rounds = ToolRounds(response=None)
    while True:
        offer = rounds.calls < use.max_calls
        response = await generate(contents, _config(base, use, offer=offer))
        rounds.response = response
        usage = response.usage_metadata
        if usage is not None:
            rounds.input_tokens += usage.prompt_token_count or 0
            rounds.output_tokens += (usage.candidates_token_count or 0) + (
                usage.thoughts_token_count or 0
            )
        calls = response.function_calls or []
        if not calls or not offer or not response.candidates:
            return rounds
        contents.append(response.candidates[0].content)
        parts: list[types.Part] = []
        for call in calls:
            if rounds.calls >= use.max_calls:
                result = "No more searches: answer from what you have."
            else:
                rounds.calls += 1
                result = await run_call(use, ToolCall(call.name or "", dict(call.args or {})))
            parts.append(
                types.Part.from_function_response(name=call.name or "", response={"result": result})
            )
        contents.append(types.Content(role="user", parts=parts))
