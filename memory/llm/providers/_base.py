"""The one small interface every LLM provider implements, and its typed errors.

Memory code never talks to a provider directly: it calls `memory.llm.tasks.MemoryLLM`, which
renders a prompt file, builds an `LLMRequest` and sends it through the provider chain. The
request carries both the rendered prompt (for real models) and the structured inputs it was
rendered from (for the deterministic offline provider), so all providers share one code path.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from memory.core.purposes import Purpose as Purpose
from memory.llm.providers._tools import ToolUse

if TYPE_CHECKING:
    from memory.core.settings import Settings


class LLMError(Exception):
    """Base of every provider failure; callers fall back on any of these.

    `retry_after` carries the provider's own hint (Retry-After, RetryInfo) in seconds, so the
    retry loop waits as long as the server asked instead of guessing.
    """

    retryable: bool = False

    def __init__(self, *args: object, retry_after: float | None = None) -> None:
        super().__init__(*args)
        self.retry_after = retry_after


class LLMUnavailable(LLMError):
    """Network failure, timeout or 5xx after retries."""

    retryable = True


class LLMUnreachable(LLMUnavailable):
    """No connection at all (refused, no route, DNS): retrying at once cannot help, and the
    circuit breaker opens on the first one."""

    retryable = False


class LLMTimedOut(LLMUnavailable):
    """No answer in time: retried, and a few in a row open the circuit breaker."""


class LLMRateLimited(LLMError):
    """429 / quota exhausted after retries."""

    retryable = True


class LLMBlocked(LLMError):
    """The provider refused to answer (safety block, empty candidates)."""


class LLMBadOutput(LLMError):
    """The answer could not be parsed or validated into the requested schema."""

    # One more sample usually cures a sampling or truncation glitch.
    resample: bool = True


class LLMUnusableOutput(LLMBadOutput):
    """An answer that cannot be used and that asking again would not mend (a model that
    answers the last tools round with more tool calls, or with nothing): the caller degrades
    once instead of repeating the whole exchange."""

    resample = False


class LLMRequestRejected(LLMError):
    """A 4xx other than 429: our request is wrong, retrying will not help."""


@dataclass(frozen=True)
class LLMRequest:
    """One call: what to ask (prompt), why (purpose), and the inputs the prompt was built from."""

    purpose: Purpose
    prompt: str
    schema: type[BaseModel] | None = None
    temperature: float = 0.0
    system: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    max_output_tokens: int | None = None
    guild_id: int | None = None
    # Tools the model may call before answering (replies); providers without tools ignore it.
    tool_use: ToolUse | None = None
    # A member waits in a burst: no long wait for a slow local model, no queueing for a slot.
    urgent: bool = False


@dataclass(frozen=True)
class LLMResponse:
    """The provider's answer; `parsed` is set (validated) when the request had a schema."""

    text: str
    parsed: BaseModel | None = None
    provider: str = ""
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    retries: int = 0
    # The tokens are our estimate (the offline provider's), not a server's count: usage shows
    # them marked, and the daily token budget leaves them out.
    tokens_estimated: bool = False


class LLMProvider(abc.ABC):
    """A model endpoint. Implementations raise only `LLMError` subclasses."""

    name: str = "provider"
    # Input tokens one prompt may hold for this provider's models (None: no limit we know of);
    # a day that fits is read in one pass instead of in chunks.
    prompt_token_limit: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMProvider | None:
        """This provider as the settings configure it, or None (with a warning logged) when it
        cannot work as configured, so the chain leaves it out instead of failing every call."""
        return cls()

    def model_for(self, purpose: Purpose) -> str:
        """The model this provider would use for `purpose` (telemetry, rate-limit keys)."""
        return ""

    @abc.abstractmethod
    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request; with a schema, `parsed` must be an instance of it."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release network resources."""


def secret_value(value: object) -> str | None:
    """The plain text of a pydantic SecretStr setting (None when unset)."""
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter is not None else None


def client_timeout(settings: Settings) -> float:
    """The SDK-level timeout: the longest any purpose may take (the chain enforces each)."""
    return max(settings.llm_timeout_seconds, settings.llm_daily_timeout_seconds)
