"""How an OpenAI-compatible server's errors are told apart: a refusal of the request (a
format or field it does not know) from an outage, a rate limit with its wait, a timeout, an
unreachable server; and the one line an admin reads about it.
"""

from __future__ import annotations

import openai

from memory.llm.providers._base import (
    LLMBadOutput,
    LLMError,
    LLMRateLimited,
    LLMRequestRejected,
    LLMTimedOut,
    LLMUnavailable,
    LLMUnreachable,
)
from memory.llm.providers._breaker import is_connect_failure

# Status codes with which servers say "I do not understand this request".
_REFUSED = frozenset({400, 422})
# Words of a validation error's body: a 5xx that says these is a refusal, not an outage.
_VALIDATION_WORDS = (
    "validation error",
    "literal_error",
    "input should be",
    "extra inputs are not permitted",
    "unprocessable",
    "not supported",
    "unsupported",
    "invalid value",
    "unrecognized",
    "unknown field",
)
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "grammar")


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
    if (code == 429 or code >= 500 or code in (408, 409)) and not is_refusal(exc):
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
        if code >= 500 and is_refusal(exc):
            return LLMRequestRejected(f"openai {code} (a refusal): {server_message(exc)}"[:500])
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


def _said(exc: openai.APIStatusError) -> str:
    return server_message(exc).casefold()


def is_refusal(exc: openai.APIStatusError) -> bool:
    """The server refused this request as invalid: sending it again cannot help. A 400/422,
    or a 5xx whose body is a validation error (llama-cpp-python answers 500 to an unknown
    response_format)."""
    code = exc.status_code
    if code in _REFUSED:
        return True
    return code >= 500 and any(word in _said(exc) for word in _VALIDATION_WORDS)


def names_the_format(exc: openai.APIStatusError) -> bool:
    """The refusal names the structured-output format: stepping down is certain to be right."""
    return any(word in _said(exc) for word in _FORMAT_WORDS)
