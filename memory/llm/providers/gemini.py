"""Google Gemini through the `google-genai` SDK's async client.

Structured calls send `response_mime_type=application/json` plus the pydantic schema (the SDK
turns it into Gemini's Schema), and the answer is validated again on our side. The SDK's own
retries are switched off: the provider chain owns retries, rate limits and timeouts, so a
request is never retried twice over.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

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
from memory.llm.providers._gemini_tools import ToolRounds, generate_with_tools
from memory.llm.providers._jsonout import parse_structured
from memory.llm.providers._problems import ProblemLog
from memory.llm.providers._purposes import pick_model

_log = logging.getLogger(__name__)

# Finish reasons that mean "the model refused", not "the model answered badly".
_BLOCKING_FINISH = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "LANGUAGE",
    }
)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Network-level exception types of whichever HTTP stack the SDK picked."""
    found: list[type[BaseException]] = [OSError, asyncio.TimeoutError]
    try:
        import aiohttp

        found.append(aiohttp.ClientError)
    except ImportError:  # pragma: no cover - aiohttp ships with discord.py
        pass
    for module_name in ("httpx2", "httpx"):
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        found.append(module.TransportError)
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()


def gemini_client(
    api_key: str, base_url: str | None, timeout_seconds: float | None
) -> genai.Client:
    """A client that never retries by itself: our chain owns retries, backoff and fallback."""
    http_options = types.HttpOptions(
        base_url=base_url,
        timeout=int(timeout_seconds * 1000) if timeout_seconds else None,
        # attempts=1 also disables the SDK's implicit one-off retry on connection errors.
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(api_key=api_key, http_options=http_options)


class GeminiProvider(LLMProvider):
    """One Gemini API key; model chosen per purpose (cheap by default, stronger for daily)."""

    name = "gemini"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        model_daily: str | None = None,
        purpose_models: Mapping[str, str] | None = None,
        base_url: str | None = None,
        timeout_seconds: float | None = None,
    ) -> None:
        self.model = model
        self.model_daily = model_daily or model
        self.purpose_models = dict(purpose_models or {})
        self._client = gemini_client(api_key, base_url, timeout_seconds)
        self._problems = ProblemLog("gemini")
        # Schemas the SDK cannot turn into Gemini's Schema type (dict fields, for one): these
        # go as plain JSON schema (`response_json_schema`) instead.
        self._json_schema_only: set[type] = set()

    @classmethod
    def from_settings(cls, settings: Settings) -> GeminiProvider | None:
        api_key = secret_value(settings.gemini_api_key)
        if not api_key:
            _log.warning("gemini is in the LLM chain but GEMINI_API_KEY is not set; skipping it")
            return None
        gemini = cls(
            api_key=api_key,
            model=settings.gemini_model,
            model_daily=settings.gemini_model_daily,
            purpose_models=purpose_pairs(settings.gemini_purpose_models),
            base_url=settings.gemini_base_url,
            timeout_seconds=client_timeout(settings),
        )
        gemini.prompt_token_limit = settings.gemini_prompt_token_limit
        return gemini

    def model_for(self, purpose: Purpose) -> str:
        return pick_model(
            purpose, model=self.model, model_daily=self.model_daily, overrides=self.purpose_models
        )

    def _config(self, request: LLMRequest) -> types.GenerateContentConfig:
        config: dict[str, Any] = {"temperature": request.temperature}
        if request.system:
            config["system_instruction"] = request.system
        if request.max_output_tokens:
            config["max_output_tokens"] = request.max_output_tokens
        if request.schema is not None:
            config["response_mime_type"] = "application/json"
            if request.schema in self._json_schema_only:
                config["response_json_schema"] = request.schema.model_json_schema()
            else:
                config["response_schema"] = request.schema
        return types.GenerateContentConfig(**config)

    async def _generate(self, request: LLMRequest, model: str) -> Any:
        try:
            return await self._client.aio.models.generate_content(
                model=model, contents=request.prompt, config=self._config(request)
            )
        except (ValueError, TypeError) as exc:
            # Raised while building the request, before anything is sent: the SDK could not
            # express the schema. Send it as JSON schema instead, once and from now on.
            if request.schema is None or request.schema in self._json_schema_only:
                raise LLMRequestRejected(f"gemini {request.purpose}: {exc}"[:500]) from exc
            _log.info("gemini: %s sent as JSON schema (%s)", request.schema.__name__, exc)
            self._json_schema_only.add(request.schema)
            return await self._generate(request, model)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        model = self.model_for(request.purpose)
        rounds: ToolRounds | None = None
        try:
            if request.tool_use is not None and request.schema is None:
                rounds = await self._generate_with_tools(request, model)
                response = rounds.response
            else:
                response = await self._generate(request, model)
        except genai_errors.APIError as exc:
            problem = describe_problem(exc, model=model)
            if problem is not None:
                self._problems.report(*problem)
            raise map_api_error(exc) from exc
        except genai_errors.UnknownApiResponseError as exc:
            raise LLMBadOutput(f"gemini: unreadable response ({exc})"[:500]) from exc
        except _TRANSPORT_ERRORS as exc:
            raise transport_error(exc) from exc
        text = _answer_text(response, request.purpose)
        usage = response.usage_metadata
        parsed = None
        if request.schema is not None:
            parsed = parse_structured(text, request.schema, what=f"gemini {request.purpose}")
        elif not text.strip():
            raise LLMBadOutput(f"gemini {request.purpose}: empty answer")
        return LLMResponse(
            text=text,
            parsed=parsed,
            provider=self.name,
            model=response.model_version or model,
            input_tokens=rounds.input_tokens if rounds else _input_tokens(usage),
            output_tokens=rounds.output_tokens if rounds else _output_tokens(usage),
        )

    async def _generate_with_tools(self, request: LLMRequest, model: str) -> ToolRounds:
        assert request.tool_use is not None

        async def generate(contents: list[types.Content], config: Any) -> Any:
            return await self._client.aio.models.generate_content(
                model=model, contents=contents, config=config
            )

        return await generate_with_tools(
            generate, request.prompt, self._config(request), request.tool_use
        )

    async def aclose(self) -> None:
        await self._client.aio.aclose()


def _input_tokens(usage: types.GenerateContentResponseUsageMetadata | None) -> int | None:
    return usage.prompt_token_count if usage else None


def _output_tokens(usage: types.GenerateContentResponseUsageMetadata | None) -> int | None:
    """Answer plus thinking tokens: both are billed as output."""
    if usage is None or usage.candidates_token_count is None:
        return None
    return usage.candidates_token_count + (usage.thoughts_token_count or 0)


def _enum_name(value: object) -> str:
    return str(getattr(value, "value", value) or "")


def _answer_text(response: types.GenerateContentResponse, purpose: str) -> str:
    """The answer's text, or LLMBlocked when the prompt or the answer was refused."""
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        reason = _enum_name(feedback.block_reason)
        raise LLMBlocked(f"gemini {purpose}: prompt blocked ({reason})")
    if not response.candidates:
        raise LLMBlocked(f"gemini {purpose}: no candidates")
    candidate = response.candidates[0]
    finish = _enum_name(candidate.finish_reason)
    if finish in _BLOCKING_FINISH:
        raise LLMBlocked(f"gemini {purpose}: answer blocked ({finish})")
    parts = candidate.content.parts if candidate.content and candidate.content.parts else []
    text = "".join(part.text for part in parts if part.text and not part.thought)
    if not text and finish == "MAX_TOKENS":
        raise LLMBadOutput(f"gemini {purpose}: ran out of output tokens before answering")
    return text


def describe_problem(exc: genai_errors.APIError, *, model: str) -> tuple[str, str] | None:
    """(what Gemini said, how to fix it) for errors retrying cannot cure, else None."""
    code = exc.code or 0
    if code in (0, 408, 429) or code >= 500:
        return None  # transient: retried, then a fallback answers
    said = f"{code} {exc.status or ''} for model {model}: {exc.message or ''}".strip()[:400]
    lowered = f"{exc.status or ''} {exc.message or ''}".lower()
    if "api key" in lowered or code in (401, 403):
        fix = "check GEMINI_API_KEY (and that the Gemini API is enabled for its project)"
    elif code == 404:
        fix = "set GEMINI_MODEL / GEMINI_MODEL_DAILY / GEMINI_PURPOSE_MODELS to an existing model"
    else:
        fix = "Gemini refused the request; check GEMINI_MODEL and GEMINI_BASE_URL"
    return said, fix


def map_api_error(exc: genai_errors.APIError) -> LLMError:
    """SDK error -> our typed error: 429 rate limit, 408/5xx unavailable, other 4xx rejected."""
    code = exc.code or 0
    message = f"gemini {code} {exc.status or ''}: {exc.message or ''}".strip()[:500]
    if code == 429:
        return LLMRateLimited(message, retry_after=_retry_delay(exc.details))
    if code == 408 or code >= 500 or code == 0:
        return LLMUnavailable(message)
    return LLMRequestRejected(message)


def _retry_delay(details: Any) -> float | None:
    """Seconds from a google.rpc.RetryInfo entry ("retryDelay": "7s"), if the error has one."""
    error = details.get("error", details) if isinstance(details, dict) else None
    entries = error.get("details") if isinstance(error, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and "retryDelay" in entry:
            match = _DURATION.match(str(entry["retryDelay"]))
            if match:
                return float(match.group(1))
    return None


def transport_error(exc: BaseException) -> LLMError:
    """A network failure: unreachable (opens the breaker), timed out, or another blip."""
    what = f"gemini: {type(exc).__name__}: {exc}"[:500]
    if is_connect_failure(exc):
        return LLMUnreachable(what)
    if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
        return LLMTimedOut(what)
    return LLMUnavailable(what)
