"""The offline provider: deterministic, honest answers built from the request's inputs.

It never sees the rendered prompt's meaning, only `request.inputs` (the same data the prompt
was built from), and answers every purpose extractively: quotes, kept sentences, rule-based
routing. It is the default without API keys and the last fallback of every chain, so it
must never be slow and never invent anything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from memory.language import addressed_text, prefilter
from memory.llm.offline import _answers as offline_answers
from memory.llm.offline import _condense as condensing
from memory.llm.offline import _episode as offline_episode
from memory.llm.offline import _extractive as extractive
from memory.llm.offline import _facts as offline_facts
from memory.llm.offline import _learn as offline_learn
from memory.llm.offline._line_index import LineIndex
from memory.llm.offline._tokens import estimated_tokens
from memory.llm.providers import (
    LLMBadOutput,
    LLMProvider,
    LLMRequest,
    LLMRequestRejected,
    LLMResponse,
    Purpose,
)

_log = logging.getLogger(__name__)

Inputs = Mapping[str, Any]
Answer = str | dict[str, Any]


def _member(inputs: Inputs) -> tuple[str, list[str]]:
    member = inputs.get("member") or {}
    name = str(member.get("name") or f"user {member.get('user_id', '?')}")
    return name, [str(alias) for alias in member.get("aliases") or []]


def _forgotten(inputs: Inputs) -> list[str]:
    value = inputs.get("forgotten") or []
    if isinstance(value, Mapping):  # daily summaries: {user id: [statements]}
        return [str(item) for items in value.values() for item in items]
    return [str(item) for item in value]


def _daily_summary(inputs: Inputs) -> Answer:
    messages = list(inputs["messages"])
    max_chars = int(inputs["max_chars"])
    # Forgotten statements of any member stay out of every summary: a fact about alice
    # forgotten at her request must not come back through what bob is quoted saying.
    members = list(inputs["members"])
    every_name = [str(m["name"]) for m in members]
    every_name += [str(alias) for m in members for alias in m.get("aliases") or []]
    lines = extractive.prepare_day(messages, forgotten=_forgotten(inputs), names=every_name)
    index = LineIndex.of(lines)
    summaries = []
    for member in members:
        summary = extractive.summarize_member_day(
            lines,
            user_id=int(member["user_id"]),
            name=str(member["name"]),
            aliases=[str(alias) for alias in member.get("aliases") or []],
            max_chars=int(member.get("max_chars") or max_chars),
            index=index,
        )
        if summary:  # the prompt asks to skip targets with nothing worth noting
            summaries.append(f"{_key(member)}: {summary}")
    targets = {int(m["user_id"]): str(m["name"]) for m in members}
    keys = {str(m["user_id"]): _key(m) for m in members}
    facts = offline_learn.learn(messages, targets)
    for fact in facts:  # answers name members as the prompt does
        fact["user_id"] = keys.get(str(fact["user_id"]), fact["user_id"])
    return {"summaries": summaries, "facts": facts}


def _key(member: Mapping[str, Any]) -> str:
    """How the prompt names a member in answers: its key (its name there), else its id."""
    return str(member.get("key") or member["user_id"])


def _daily_reduce(inputs: Inputs) -> Answer:
    forgotten = inputs.get("forgotten") or {}
    parts = inputs.get("parts") or {}
    summaries = []
    for member in inputs["members"]:
        key = str(member["user_id"])
        name = str(member["name"])
        text = condensing.condense(
            [(None, str(part)) for part in parts.get(key, [])],
            max_chars=int(inputs["max_chars"]),
            forgotten=[str(statement) for statement in forgotten.get(key, [])],
            names=[name, *[str(alias) for alias in member.get("aliases") or []]],
        )
        summaries.append(f"{_key(member)}: {text}")
    return {"summaries": summaries}


def _historical(inputs: Inputs) -> Answer:
    if "members" in inputs:  # many members at once: a guild's histories when a day closes
        return _historical_batch(inputs)
    name, aliases = _member(inputs)
    days: list[tuple[str | None, str]] = []
    previous = inputs.get("previous")
    if previous:  # rolled forward: the earlier narrative's sentences still in the window
        days += condensing.narrative_units(
            str(previous["text"]),
            until=str(previous["until"]),
            start=str(inputs.get("start_day") or previous["until"]),
        )
    days += [(condensing.day_label(str(d["day"])), str(d["text"])) for d in inputs["days"]]
    text = condensing.condense(
        days,
        max_chars=int(inputs["max_chars"]),
        forgotten=_forgotten(inputs),
        names=[name, *aliases],
        every_label=True,
    )
    return {"text": text}


def _historical_batch(inputs: Inputs) -> Answer:
    forgotten = inputs.get("forgotten") or {}
    days = inputs.get("days") or {}
    summaries = []
    for member in inputs["members"]:
        key = str(member["user_id"])
        single = {
            "member": member,
            "days": days.get(key, []),
            "max_chars": inputs["max_chars"],
            "forgotten": forgotten.get(key, []),
            "previous": (inputs.get("previous") or {}).get(key),
            "start_day": inputs.get("start_day"),
        }
        text = _historical(single)
        summaries.append(f"{_key(member)}: {text['text']}")  # type: ignore[index]
    return {"summaries": summaries}


def _rules(inputs: Inputs) -> offline_facts.FactRules:
    name, aliases = _member(inputs)
    return offline_facts.FactRules(name, aliases, int(inputs["max_chars"]), _forgotten(inputs))


def _merge(inputs: Inputs) -> Answer:
    facts, today, history = (str(inputs.get(key) or "") for key in ("facts", "today", "history"))
    return {"text": offline_facts.merge(facts, today, history, _rules(inputs))}


def _remember(inputs: Inputs) -> Answer:
    blob = str(inputs.get("blob") or "")
    return {"text": offline_facts.remember(blob, str(inputs["statement"]), _rules(inputs))}


def _forget(inputs: Inputs) -> Answer:
    name, aliases = _member(inputs)
    found, blob = offline_facts.forget(
        str(inputs.get("blob") or ""), str(inputs["statement"]), name=name, aliases=aliases
    )
    return {"found": found, "blob": blob}


def _route(inputs: Inputs) -> Answer:
    """The rule-based pre-filter itself: offline, a command the rules cannot parse is chat."""
    text = str(inputs["text"])
    body = addressed_text(text, bot_name=str(inputs.get("bot_name") or "")) or text
    decision = prefilter(body, has_reply=bool(inputs.get("replied_to")))
    parsed = decision.parsed
    if parsed is None:
        return {"kind": "none"}
    # The router has no "forget_this": a statement-less forget with a reply means the same.
    kind = "forget" if parsed.kind == "forget_this" else parsed.kind
    return {"kind": kind, "target": parsed.target, "statement": parsed.statement}


def _whois(inputs: Inputs) -> Answer:
    name, _ = _member(inputs)
    return {"text": offline_answers.whois(name, str(inputs.get("memory") or ""))}


def _window_fold(inputs: Inputs) -> Answer:
    text = condensing.fold_turns(
        str(inputs.get("summary") or ""),
        list(inputs.get("turns") or []),
        max_chars=int(inputs["max_chars"]),
    )
    return {"text": text}


def _reply(inputs: Inputs) -> Answer:
    return offline_answers.reply(inputs)


HANDLERS: dict[str, Callable[[Inputs], Answer]] = {
    "daily_summary": _daily_summary,
    "daily_reduce": _daily_reduce,
    "historical_summary": _historical,
    "merge": _merge,
    "remember": _remember,
    "forget": _forget,
    "route": _route,
    "whois": _whois,
    "window_fold": _window_fold,
    "reply": _reply,
    "episode": offline_episode.episodes_answer,
}


class OfflineProvider(LLMProvider):
    """Answers every purpose from `request.inputs` with pure Python; no network, no model."""

    name = "offline"

    def model_for(self, purpose: Purpose) -> str:
        return "extractive"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        handler = HANDLERS.get(request.purpose)
        if handler is None:
            raise LLMRequestRejected(f"offline: no handler for purpose {request.purpose}")
        inputs = request.inputs
        if request.purpose in _READS_PROMPT:
            inputs = {**inputs, "prompt": request.prompt}
        if request.purpose in _THREADED:  # counting a day's prompt's tokens too
            return await asyncio.to_thread(_answer, request, handler, inputs)
        return _answer(request, handler, inputs)


def _answer(
    request: LLMRequest, handler: Callable[[Inputs], Answer], inputs: Inputs
) -> LLMResponse:
    try:
        answer = handler(inputs)
    except (KeyError, TypeError, ValueError) as exc:
        raise LLMRequestRejected(
            f"offline {request.purpose}: inputs incomplete ({type(exc).__name__}: {exc})"
        ) from exc
    return _response(request, answer)


# Purposes whose inputs can be a whole day of chat run in a worker thread, so the event loop
# keeps serving the gateway, ingestion and reply budgets meanwhile: the work is pure Python and
# still shares the GIL, but the loop gets a turn every switch interval instead of waiting
# for the whole day to be summarised.
_THREADED = frozenset({"daily_summary", "daily_reduce", "historical_summary"})
# Purposes whose answer comes from the rendered prompt too: a reply quotes the messages the
# composer recalled into it (`<recalled>` elements), which its inputs do not repeat.
_READS_PROMPT = frozenset({"reply"})


def _response(request: LLMRequest, answer: Answer) -> LLMResponse:
    parsed: BaseModel | None = None
    if request.schema is not None:
        value = answer if isinstance(answer, dict) else {"text": answer}
        try:
            parsed = request.schema.model_validate(value)
        except ValidationError as exc:
            raise LLMBadOutput(
                f"offline {request.purpose}: answer does not fit {request.schema.__name__}"
            ) from exc
        text = parsed.model_dump_json()
    else:
        text = answer if isinstance(answer, str) else str(answer.get("text", ""))
    # What a model would have billed for this prompt and answer, counted by us: an estimate.
    return LLMResponse(
        text=text,
        parsed=parsed,
        provider="offline",
        model="extractive",
        input_tokens=estimated_tokens(request.prompt) + estimated_tokens(request.system or ""),
        output_tokens=estimated_tokens(text),
        tokens_estimated=True,
    )
