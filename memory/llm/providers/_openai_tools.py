"""OpenAI-compatible `tools` for replies: the same loop as Gemini's, in chat messages.

Servers that do not know `tools` (some llama.cpp builds) answer 400; the provider then
answers without tools, and the prompt's first search still carries what was said.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from memory.llm.providers._tools import ToolCall, ToolUse, parse_arguments, run_call

Create = Callable[[list[dict[str, Any]], dict[str, Any]], Awaitable[Any]]


@dataclass
class ChatRounds:
    completion: Any
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    # Why the last round cannot be used as a reply ("" when it can).
    unusable: str = ""


def tool_specs(use: ToolUse) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.parameters),
            },
        }
        for tool in use.tools
    ]


async def create_with_tools(
    create: Create, messages: list[dict[str, Any]], use: ToolUse
) -> ChatRounds:
    rounds = ChatRounds(completion=None)
    specs = tool_specs(use)
    while True:
        offer = rounds.calls < use.max_calls
        completion = await create(
            messages, {"tools": specs, "tool_choice": "auto" if offer else "none"}
        )
        rounds.completion = completion
        if completion.usage is not None:
            rounds.input_tokens += completion.usage.prompt_tokens or 0
            rounds.output_tokens += completion.usage.completion_tokens or 0
        message = completion.choices[0].message if completion.choices else None
        calls = (message.tool_calls or []) if message is not None else []
        if not offer and calls:
            rounds.unusable = "the last round asked for more tool calls instead of answering"
            return rounds
        if not calls or message is None:
            if message is None or not (message.content or "").strip():
                rounds.unusable = "no answer after the tool rounds"
            return rounds
        messages.append(
            {
                "role": "assistant",
                "content": message.content or "",
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.function.name,
                            "arguments": call.function.arguments or "{}",
                        },
                    }
                    for call in calls
                ],
            }
        )
        for call in calls:
            if rounds.calls >= use.max_calls:
                result = "No more searches: answer from what you have."
            else:
                rounds.calls += 1
                arguments = parse_arguments(call.function.arguments)
                result = await run_call(use, ToolCall(call.function.name, arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
