"""Any OpenAI-compatible chat endpoint: Ollama, llama.cpp server, vLLM, LM Studio, OpenRouter.

Structured calls ask for `response_format: json_schema` first. Servers differ in what they
accept: a refusal (a 400/422, or a 5xx whose body is a validation error, as llama-cpp-python's
server answers) steps down to `json_object` with a `schema` key, then `json_object`, then plain
instructions, at once and without backoff; the step is remembered (`_capabilities.py`). Tools
likewise. Answers are always validated on our side, with JSON-in-text extraction for models
that wrap or prefix their JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel

from memory.core.settings import Settings, purpose_pairs
from memory.llm.providers._base import (
    LLMBadOutput,
    LLMBlocked,
    LLMError,
    LLMProvider,
    LLMRequest,
    LLMResponse,
    LLMUnusableOutput,
    Purpose,
    client_timeout,
    secret_value,
)
from memory.llm.providers._capabilities import EndpointCapabilities, next_structured_mode
from memory.llm.providers._jsonout import parse_structured, strict_json_schema
from memory.llm.providers._openai_errors import (
    describe_problem,
    is_refusal,
    map_api_error,
    names_the_format,
    server_message,
)
from memory.llm.providers._openai_tools import create_with_tools
from memory.llm.providers._problems import ProblemLog
from memory.llm.providers._purposes import pick_model

_log = logging.getLogger(__name__)

# Names why each request is made, so a gateway or a recording proxy in front of the server (the
# live-model harness's, bench/live_proxy.py) can tell purposes apart; servers ignore it.
PURPOSE_HEADER = "X-Memorybot-Purpose"


def openai_client(base_url: str, api_key: str | None, timeout_seconds: float) -> AsyncOpenAI:
    """A client that never retries by itself (our chain does); local servers need no key."""
    return AsyncOpenAI(
        base_url=base_url,
        api_key=api_key or "not-needed",
        max_retries=0,
        timeout=timeout_seconds,
    )


class OpenAICompatibleProvider(LLMProvider):
    """Chat completions on one base URL; the SDK's retries are off (the chain retries)."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        model_daily: str | None = None,
        purpose_models: Mapping[str, str] | None = None,
        timeout_seconds: float = 30.0,
    ) -> None:
        self.model = model
        self.model_daily = model_daily or model
        self.purpose_models = dict(purpose_models or {})
        self.base_url = base_url
        self._problems = ProblemLog("openai")
        self._client = openai_client(base_url, api_key, timeout_seconds)
        # What each model was found to accept; a store set by the factory keeps it across
        # restarts.
        self.capabilities = EndpointCapabilities(base_url)

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatibleProvider:
        compatible = cls(
            base_url=settings.openai_base_url,
            api_key=secret_value(settings.openai_api_key),
            model=settings.openai_model,
            model_daily=settings.openai_model_daily,
            purpose_models=purpose_pairs(settings.openai_purpose_models),
            timeout_seconds=client_timeout(settings),
        )
        compatible.prompt_token_limit = settings.openai_prompt_token_limit
        return compatible

    def model_for(self, purpose: Purpose) -> str:
        return pick_model(
            purpose, model=self.model, model_daily=self.model_daily, overrides=self.purpose_models
        )

    async def complete(self, request: LLMRequest) -> LLMResponse:
        model = self.model_for(request.purpose)
        found = await self.capabilities.of(model)
        if request.tool_use is not None and request.schema is None and found.tools:
            return await self._complete_with_tools(request, model)
        mode = found.structured if request.schema is not None else "plain"
        unsure: str | None = None  # a mode that worked after a refusal that did not name it
        while True:
            try:
                completion = await self._create(request, model, mode=mode)
            except openai.APIStatusError as exc:
                lower = next_structured_mode(mode) if request.schema is not None else None
                if lower is None or unsure is not None or not is_refusal(exc):
                    raise self._failed(exc, model) from exc
                if names_the_format(exc):
                    await self.capabilities.downgrade(
                        model, structured=lower, reason=server_message(exc)
                    )
                else:  # maybe the format, maybe the request: one step down tells
                    unsure = server_message(exc)
                mode = lower
                continue
            except openai.APIError as exc:
                raise self._failed(exc, model) from exc
            break
        if unsure is not None:
            await self.capabilities.downgrade(model, structured=mode, reason=unsure)
        return self._response(request, model, completion)

    async def _complete_with_tools(self, request: LLMRequest, model: str) -> LLMResponse:
        """Offer the request's tools; a server that refuses `tools` is asked again without
        them, and not offered tools again (remembered like a format)."""
        assert request.tool_use is not None
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})

        async def create(sent: list[dict[str, Any]], extra: dict[str, Any]) -> Any:
            kwargs = dict(extra)
            if request.max_output_tokens:
                kwargs["max_tokens"] = request.max_output_tokens
            # The SDK types each message as a TypedDict per role; ours are built as plain dicts.
            return await self._client.chat.completions.create(
                model=model,
                messages=sent,  # type: ignore[arg-type]
                temperature=request.temperature,
                extra_headers={PURPOSE_HEADER: request.purpose},
                **kwargs,
            )

        try:
            rounds = await create_with_tools(create, messages, request.tool_use)
        except openai.APIStatusError as exc:
            if not is_refusal(exc):
                raise self._failed(exc, model) from exc
            await self.capabilities.downgrade(model, tools=False, reason=server_message(exc))
            return await self.complete(request)
        except openai.APIError as exc:
            raise self._failed(exc, model) from exc
        if rounds.unusable:
            raise LLMUnusableOutput(f"openai reply: {rounds.unusable}")
        response = self._response(request, model, rounds.completion)
        return replace(
            response, input_tokens=rounds.input_tokens, output_tokens=rounds.output_tokens
        )

    def _failed(self, exc: openai.APIError, model: str) -> LLMError:
        """The typed error; a configuration problem is also shown to the admin, once."""
        problem = describe_problem(exc, model=model, base_url=self.base_url)
        if problem is not None:
            self._problems.report(*problem)
        return map_api_error(exc)

    async def _create(self, request: LLMRequest, model: str, *, mode: str) -> Any:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        prompt = request.prompt
        kwargs: dict[str, Any] = {}
        if request.schema is not None:
            kwargs.update(response_format(request.schema, mode))
            if mode in ("json_object", "plain"):
                schema_text = json.dumps(request.schema.model_json_schema(), ensure_ascii=False)
                prompt += (
                    "\n\nAnswer with one JSON object only, no other text, matching this JSON "
                    f"schema:\n{schema_text}"
                )
        messages.append({"role": "user", "content": prompt})
        if request.max_output_tokens:
            kwargs["max_tokens"] = request.max_output_tokens
        return await self._client.chat.completions.create(
            model=model,
            messages=messages,  # type: ignore[arg-type]
            temperature=request.temperature,
            extra_headers={PURPOSE_HEADER: request.purpose},
            **kwargs,
        )

    def _response(self, request: LLMRequest, model: str, completion: Any) -> LLMResponse:
        what = f"openai {request.purpose}"
        if not completion.choices:
            raise LLMBlocked(f"{what}: no choices")
        choice = completion.choices[0]
        if choice.finish_reason == "content_filter":
            raise LLMBlocked(f"{what}: answer blocked (content_filter)")
        message = choice.message
        text = (message.content if message else None) or ""
        refusal = getattr(message, "refusal", None) if message else None
        if refusal and not text:
            raise LLMBlocked(f"{what}: refused ({refusal})"[:500])
        parsed = None
        if request.schema is not None:
            parsed = parse_structured(text, request.schema, what=what)
        elif not text.strip():
            raise LLMBadOutput(f"{what}: empty answer")
        usage = completion.usage
        return LLMResponse(
            text=text,
            parsed=parsed,
            provider=self.name,
            model=completion.model or model,
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
        )

    async def aclose(self) -> None:
        await self._client.close()


def response_format(schema: type[BaseModel], mode: str) -> dict[str, Any]:
    """The `response_format` argument for one structured-output mode (none for plain)."""
    if mode == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.__name__,
                    "schema": strict_json_schema(schema),
                    "strict": True,
                },
            }
        }
    if mode == "json_object_schema":
        # llama-cpp-python's server turns `schema` into a grammar the model must follow.
        return {"response_format": {"type": "json_object", "schema": schema.model_json_schema()}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}
