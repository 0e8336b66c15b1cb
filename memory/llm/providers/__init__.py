"""The model providers behind one base class (`LLMProvider`) and a registry from provider name
to class (`PROVIDERS`): Gemini, OpenAI-compatible, and the offline one (`memory.llm.offline`).
Also their common request/response types and errors, and the fallback chain that tries them.

The SDK-backed providers (`gemini`, `openai_compat`) are public modules imported only when used:
their SDKs are optional extras and slow to import.
"""

from __future__ import annotations

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
    LLMUnusableOutput,
    Purpose,
)
from memory.llm.providers._breaker import (
    BreakerPolicy,
    CircuitBreakers,
    is_connect_failure,
    is_local_endpoint,
)
from memory.llm.providers._breaker_report import (
    BreakerStateFile,
    breaker_listener,
    breaker_report,
)
from memory.llm.providers._capabilities import (
    STRUCTURED_MODES,
    Capabilities,
    CapabilityStore,
    DatabaseCapabilities,
    EndpointCapabilities,
)
from memory.llm.providers._chain import LLMQueueTimeout, ProviderChain, Sleep
from memory.llm.providers._guarded import ProviderLimits, RequestLimiter, local_limiter
from memory.llm.providers._jsonout import parse_structured, strict_json_schema
from memory.llm.providers._problems import ProblemLog
from memory.llm.providers._purposes import DAILY_PURPOSES, INTERACTIVE_PURPOSES, pick_model
from memory.llm.providers._registry import PROVIDERS, build_provider, provider_class
from memory.llm.providers._retry import RetryPolicy
from memory.llm.providers._shared_limit import SharedRateLimiter, SharedRateLimits
from memory.llm.providers._tools import Tool, ToolCall, ToolUse
from memory.llm.providers._tracking import track_providers

__all__ = [
    "DAILY_PURPOSES",
    "INTERACTIVE_PURPOSES",
    "PROVIDERS",
    "STRUCTURED_MODES",
    "BreakerPolicy",
    "BreakerStateFile",
    "Capabilities",
    "CapabilityStore",
    "CircuitBreakers",
    "DatabaseCapabilities",
    "EndpointCapabilities",
    "LLMBadOutput",
    "LLMBlocked",
    "LLMError",
    "LLMProvider",
    "LLMQueueTimeout",
    "LLMRateLimited",
    "LLMRequest",
    "LLMRequestRejected",
    "LLMResponse",
    "LLMTimedOut",
    "LLMUnavailable",
    "LLMUnreachable",
    "LLMUnusableOutput",
    "ProblemLog",
    "ProviderChain",
    "ProviderLimits",
    "Purpose",
    "RequestLimiter",
    "RetryPolicy",
    "SharedRateLimiter",
    "SharedRateLimits",
    "Sleep",
    "Tool",
    "ToolCall",
    "ToolUse",
    "breaker_listener",
    "breaker_report",
    "build_provider",
    "is_connect_failure",
    "is_local_endpoint",
    "local_limiter",
    "parse_structured",
    "pick_model",
    "provider_class",
    "strict_json_schema",
    "track_providers",
]
