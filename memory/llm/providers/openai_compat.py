"""Any OpenAI-compatible chat endpoint: Ollama, llama.cpp server, vLLM, LM Studio, OpenRouter.

Structured calls ask for `response_format: json_schema`. Servers differ in what they accept:
when one rejects the format (a 400/422) the call is repeated once without it, with the schema
spelled out in the prompt, and the model remembers not to send it again. Answers are always
validated on our side, with JSON-in-text extraction for models that wrap or prefix their JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import openai
from openai import AsyncOpenAI

from memory.core.settings import Settings, purpose_pairs
from memory.llm.providers._base import (
    LLMBadOutput,
    LLMBlocked,
    LLMError,
    LLMProvider,
    LLMRateLimited,
    LLMRequest,
    LLMRequestRejected,
    LLMResponse,
    LLMTimedOut,
    LLMUnavailable,
    LLMUnreachable,
    Purpose,
    client_timeout,
    secret_value,
)
from memory.llm.providers._breaker import is_connect_failure
from memory.llm.providers._jsonout import parse_structured, strict_json_schema
from memory.llm.providers._openai_tools import create_with_tools
from memory.llm.providers._problems import ProblemLog
from memory.llm.providers._purposes import pick_model

_log = logging.getLogger(__name__)

# Status codes with which servers say "I do not understand response_format".
_FORMAT_REJECTED = frozenset({400, 422})


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
        # Models whose server refused `response_format: json_schema` once: prompt-only JSON.
        self._no_schema_format: set[str] = set()
        # Models whose server rejected `tools`: replies go to them without tools from then on.
        self._no_tools: set[str] = set()

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
        use_format = request.schema is not None and model not in self._no_schema_format
        if request.tool_use is not None and request.schema is None and model not in self._no_tools:
            return await self._complete_with_tools(request, model)
        try:
            completion = await self._create(request, model, schema_format=use_format)
        except openai.APIStatusError as exc:
            if not (use_format and exc.status_code in _FORMAT_REJECTED):
                raise self._failed(exc, model) from exc
            _log.info(
                "%s rejected response_format json_schema (%s); using JSON in text",
                model,
                exc.status_code,
            )
            try:
                completion = await self._create(request, model, schema_format=False)
            except openai.APIError as retry_exc:
                raise self._failed(retry_exc, model) from retry_exc
            # Only now is it clear the format, not the request, was the problem.
            self._no_schema_format.add(model)
        except openai.APIError as exc:
            raise self._failed(exc, model) from exc
        return self._response(request, model, completion)

    async def _complete_with_tools(self, request: LLMRequest, model: str) -> LLMResponse:
        """Offer the request's tools; a server that rejects `tools` (400/422) is asked again
        without them, and not offered tools again."""
        assert request.tool_use is not None
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})

        async def create(sent: list[dict[str, Any]], extra: dict[str, Any]) -> Any:
            kwargs = dict(extra)
            if request.max_output_tokens:
                kwargs["max_tokens"] = request.max_output_tokens
            return await self._client.chat.completions.create(
                model=model, messages=sent, temperature=request.temperature, **kwargs
            )

        try:
            rounds = await create_with_tools(create, messages, request.tool_use)
        except openai.APIStatusError as exc:
            if exc.status_code not in _FORMAT_REJECTED:
                raise self._failed(exc, model) from exc
            _log.info("%s rejected tools (%s); answering without them", model, exc.status_code)
            self._no_tools.add(model)
            return await self.complete(request)
        except openai.APIError as exc:
            raise self._failed(exc, model) from exc
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

    async def _create(self, request: LLMRequest, model: str, *, schema_format: bool) -> Any:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        prompt = request.prompt
        kwargs: dict[str, Any] = {}
        if request.schema is not None:
            if schema_format:
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": request.schema.__name__,
                        "schema": strict_json_schema(request.schema),
                        "strict": True,
                    },
                }
            else:
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


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date: rare for these servers, let backoff decide
        return None


def server_message(exc: openai.APIError) -> str:
    """What the server itself said (Ollama: `model "x" not found, try pulling it first`)."""
    body = exc.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error")
        if isinstance(message, str) and message.strip():
            return message.strip()
    if isinstance(body, str) and body.strip():
        return body.strip()
    return str(exc.message or exc)


def describe_problem(exc: openai.APIError, *, model: str, base_url: str) -> tuple[str, str] | None:
    """(what the server said, how to fix it) for errors retrying cannot cure, else None."""
    if isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError):
        return (
            f"cannot connect to {base_url} ({exc})",
            "is the server running? check OPENAI_BASE_URL",
        )
    if not isinstance(exc, openai.APIStatusError):
        return None
    code = exc.status_code
    if code == 429 or code >= 500 or code in (408, 409):
        return None  # transient: retried, then a fallback answers
    message = server_message(exc)
    said = f"{code} from {base_url} for model {model}: {message}"[:400]
    lowered = message.lower()
    if code == 404 and "pull" in lowered:
        fix = f"run `ollama pull {model}` on that server, or set OPENAI_MODEL to a model it has"
    elif code == 404 and "model" in lowered:
        fix = "set OPENAI_MODEL (or OPENAI_MODEL_DAILY, OPENAI_PURPOSE_MODELS) to a model it has"
    elif code == 404:
        fix = "check OPENAI_BASE_URL (OpenAI-compatible servers usually end in /v1)"
    elif code in (401, 403):
        fix = "check OPENAI_API_KEY"
    else:
        fix = "the server refused the request; check that OPENAI_MODEL is a chat model"
    return said, fix


def map_api_error(exc: openai.APIError) -> LLMError:
    """SDK error -> typed error: 429 rate limit, timeouts/5xx unavailable, other 4xx rejected."""
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        message = f"openai {code}: {exc.message}"[:500]
        if code == 429:
            return LLMRateLimited(message, retry_after=_retry_after(exc))
        if code in (408, 409) or code >= 500:
            return LLMUnavailable(message)
        return LLMRequestRejected(message)
    if isinstance(exc, openai.APITimeoutError):
        return LLMTimedOut(f"openai: {type(exc).__name__}: {exc}"[:500])
    if isinstance(exc, openai.APIConnectionError) and is_connect_failure(exc):
        return LLMUnreachable(f"openai: cannot connect ({exc.__cause__ or exc})"[:500])
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable(f"openai: {type(exc).__name__}: {exc}"[:500])
    if isinstance(exc, openai.APIResponseValidationError):
        return LLMBadOutput(f"openai: unexpected response shape ({exc})"[:500])
    return LLMUnavailable(f"openai: {type(exc).__name__}: {exc}"[:500])
