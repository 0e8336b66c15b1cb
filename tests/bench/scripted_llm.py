"""A scripted OpenAI-compatible server for the live-model harness's own tests: right, or wrong
in given ways, so each check of bench/live_checks.py is seen to fail.

Ways it can be wrong (WAYS):
- "nonsense": every text is fluent and about nothing the chat said (JSON answers too);
- "schema_echo": structured answers fill the schema with its own descriptions;
- "example": structured answers are the prompt's `<output>` example;
- "tool_as_text": asked with tools, it writes the tool call as text instead of `tool_calls`;
- "no_tool_call": asked with tools, it answers at once, never calling one;
- "markup_after_tool": after a tool's result, it answers with a tool call as text (a small
  model's habit), and "markup_after_tool_once" only the first time;
- "empty": replies are empty;
- "format_outage": a `json_schema` request gets a 500 that does not say it is a refusal.

A server made with `tools=True` acts like llama-cpp-python with a tool-calling chat format;
without, it ignores `tools` as the default chat formats do. The purpose header tells it which
right answer to write (a real server needs no such help).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bench.live_proxy import serving
from memory.llm.providers.openai_compat import PURPOSE_HEADER

WAYS = (
    "nonsense",
    "schema_echo",
    "example",
    "tool_as_text",
    "no_tool_call",
    "markup_after_tool",
    "markup_after_tool_once",
    "empty",
    "format_outage",
)
NONSENSE = "The orchestra rehearsed a symphony about glaciers, and the violins hummed all winter."
NONSENSE_NOTE = "The harbour council painted every lamppost violet before the regatta."
RIGHT_REPLY = "Happy to help, Alice: the sample hikers keep me posted on every walk."
AFTER_TOOL = "From what was said: "
_OUTPUT = re.compile(r"<output>JSON:\s*(.*?)</output>", re.DOTALL)
_BLOCK = "<{0}[^>]*>(.*?)</{0}>"


def _block(prompt: str, tag: str) -> str:
    found = re.search(_BLOCK.format(tag), prompt, re.DOTALL)
    return found.group(1).strip() if found else ""


def _schema(body: dict[str, Any], prompt: str) -> dict[str, Any]:
    """The JSON schema the bot asked for: in `response_format`, or written in the prompt."""
    form = body.get("response_format") or {}
    schema = (form.get("json_schema") or {}).get("schema") or form.get("schema")
    if isinstance(schema, dict):
        return schema
    if "JSON schema:" in prompt:
        text = prompt.rsplit("JSON schema:", 1)[1].strip()
        found, _ = json.JSONDecoder().raw_decode(text)
        return dict(found)
    return {}


def _filled(schema: dict[str, Any], text: Any, defs: dict[str, Any] | None = None) -> Any:
    """A value of `schema` whose strings are `text(description or name)`."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return _filled(defs[schema["$ref"].rsplit("/", 1)[-1]], text, defs)
    options = schema.get("anyOf")
    if options:
        return _filled(options[0], text, defs)
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][-1]
    if kind == "object":
        return {
            key: _filled({"description": key, **value}, text, defs)
            for key, value in schema.get("properties", {}).items()
        }
    if kind == "array":
        return [_filled(schema.get("items", {}), text, defs)]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 1
    return text(str(schema.get("description") or "text"))


def _route(prompt: str) -> dict[str, Any]:
    said = _block(prompt, "message").casefold()
    if "remember that" in said:
        return {"kind": "remember", "target": None, "statement": said.split("remember that")[1]}
    if "forget that" in said:
        return {"kind": "forget", "target": None, "statement": said.split("forget that")[1]}
    if "know about" in said:
        target = said.split("know about")[1].strip(" ?")
        return {"kind": "whois", "target": target, "statement": None}
    return {"kind": "none", "target": None, "statement": None}


def right_answer(purpose: str, prompt: str, schema: dict[str, Any]) -> Any:
    """What a careful model answers: only from what the prompt says."""
    memory = _block(prompt, "memory")
    if purpose == "route":
        return _route(prompt)
    if purpose == "whois":
        return {"text": f"From my notes: {memory}" if memory else "I know nothing about them yet."}
    if purpose == "remember":
        return {"text": f"{memory} {_block(prompt, 'statement')}".strip()}
    if purpose == "forget":
        return {"found": False, "blob": memory}
    lines = [line for line in _block(prompt, "transcript").splitlines() if ": " in line]
    said = lines[0].split(": ", 1)[1] if lines else memory or "nothing"
    return _filled(schema, lambda _: said)


@dataclass
class Scripted:
    """The server's behaviour: right, or wrong in each of `ways`."""

    ways: frozenset[str] = frozenset()
    tools: bool = False
    marked: int = 0  # answers after a tool's result given as markup so far

    def answer(self, body: dict[str, Any], purpose: str) -> tuple[int, dict[str, Any]]:
        messages = body.get("messages") or []
        prompt = str(messages[-1].get("content") or "") if messages else ""
        form = (body.get("response_format") or {}).get("type")
        if "format_outage" in self.ways and form == "json_schema":
            return 500, {"error": {"message": "json_schema: the sampler failed to start"}}
        if "<output>JSON:" in prompt or form:
            return 200, _completion(json.dumps(self._structured(purpose, prompt, body)))
        if self.tools and body.get("tools"):
            return 200, self._with_tools(messages, offered=body.get("tool_choice") != "none")
        return 200, _completion(self._reply(RIGHT_REPLY))

    def _reply(self, right: str) -> str:
        if "empty" in self.ways:
            return ""
        return NONSENSE if "nonsense" in self.ways else right

    def _structured(self, purpose: str, prompt: str, body: dict[str, Any]) -> Any:
        schema = _schema(body, prompt)
        if "nonsense" in self.ways:
            return _filled(schema, lambda _: NONSENSE_NOTE)
        if "schema_echo" in self.ways:
            return _filled(schema, lambda description: description)
        found = _OUTPUT.search(prompt)
        if "example" in self.ways and found:
            return json.JSONDecoder().raw_decode(found.group(1).strip())[0]
        return right_answer(purpose, prompt, schema)

    def _with_tools(self, messages: list[dict[str, Any]], *, offered: bool) -> dict[str, Any]:
        results = [m for m in messages if m.get("role") == "tool"]
        call = {"name": "search_memory", "arguments": json.dumps({"query": "next trip"})}
        if results:  # the round after the tool's result: answer from it
            if "markup_after_tool" in self.ways or (
                "markup_after_tool_once" in self.ways and not self.marked
            ):
                self.marked += 1
                return _completion(f"functions.search_memory: {json.dumps(call)}")
            text = str(results[-1].get("content") or "").splitlines()[0]
            return _completion(self._reply(AFTER_TOOL + text))
        if not offered or "no_tool_call" in self.ways:
            return _completion(self._reply(RIGHT_REPLY))
        if "tool_as_text" in self.ways:
            return _completion(f"<tool_call>{json.dumps(call)}</tool_call>")
        return _completion("", [{"id": "call_1", "type": "function", "function": call}])


def _completion(text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@contextmanager
def scripted_server(*ways: str, tools: bool = False) -> Iterator[str]:
    """The server on a free loopback port, wrong in each of `ways`; its base URL (ending in
    /v1)."""
    unknown = set(ways) - set(WAYS)
    assert not unknown, f"no such way: {unknown}"
    script = Scripted(frozenset(ways), tools)

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "scripted"}]})

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        status, answer = script.answer(body, request.headers.get(PURPOSE_HEADER, ""))
        return web.json_response(answer, status=status)

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    with serving(app) as port:
        yield f"http://127.0.0.1:{port}/v1"
