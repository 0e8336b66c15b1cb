"""Build the LLM stack from settings: providers, per-purpose chains, limits, `MemoryLLM`.

A provider that cannot work as configured (Gemini without a key) is left out of the chains
with a warning instead of failing every call; the offline provider needs nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import asyncpg

from memory.core.purposes import PURPOSES
from memory.core.settings import ProviderName, Settings
from memory.core.telemetry import Telemetry
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    DAILY_PURPOSES,
    INTERACTIVE_PURPOSES,
    BreakerPolicy,
    BreakerStateFile,
    CapabilityStore,
    CircuitBreakers,
    DatabaseCapabilities,
    EndpointCapabilities,
    LLMProvider,
    ProviderChain,
    ProviderLimits,
    RequestLimiter,
    RetryPolicy,
    SharedRateLimits,
    Sleep,
    breaker_listener,
    build_provider,
    is_local_endpoint,
)
from memory.llm.tasks import MemoryLLM

# Makes a limiter shared across processes from a key ("gemini:model") and a rate.
SharedLimits = Callable[[str, float], RequestLimiter]

_log = logging.getLogger(__name__)


def provider_limits(
    provider: LLMProvider, settings: Settings, shared: SharedLimits | None = None
) -> ProviderLimits:
    """Rate and concurrency guards for a remote provider; none for the local one. With
    `shared`, the rate limits hold across every process on the database."""
    if provider.name == "offline":
        return ProviderLimits()
    rpm: float | None = settings.llm_requests_per_minute
    if provider.name == "openai" and settings.openai_requests_per_minute:
        rpm = settings.openai_requests_per_minute
    elif provider.name == "openai" and is_local_endpoint(settings.openai_base_url):
        # A server of our own (Ollama on localhost, a compose service): no quota to keep to
        # unless OPENAI_REQUESTS_PER_MINUTE sets one. Gemini keeps its free-tier default.
        rpm = None
    per_model: dict[str, float] = {}
    daily_model = provider.model_for("daily_summary")
    if provider.name == "gemini" and daily_model != provider.model_for("route"):
        # Gemini quotas are per model; the stronger daily model has the smaller free quota.
        per_model[daily_model] = settings.llm_daily_requests_per_minute
    return ProviderLimits(
        requests_per_minute=rpm,
        max_concurrency=settings.llm_max_concurrency,
        model_requests_per_minute=per_model,
        shared=shared,
    )


def retry_policy(settings: Settings) -> RetryPolicy:
    local = settings.openai_base_url and is_local_endpoint(settings.openai_base_url)
    return RetryPolicy(
        max_retries=settings.llm_max_retries,
        backoff_base=settings.llm_backoff_base_seconds,
        backoff_max=settings.llm_backoff_max_seconds,
        bad_output_retries=settings.llm_bad_output_retries,
        timeout=settings.llm_timeout_seconds,
        queue_timeout=settings.llm_queue_timeout_seconds,
        purpose_timeouts={
            purpose: settings.llm_daily_timeout_seconds for purpose in DAILY_PURPOSES
        },
        purpose_deadlines={
            purpose: settings.llm_interactive_timeout_seconds for purpose in INTERACTIVE_PURPOSES
        },
        provider_deadlines={"openai": settings.llm_local_interactive_timeout_seconds}
        if local
        else {},
    )


def build_provider_chain(
    settings: Settings,
    telemetry: Telemetry,
    *,
    sleep: Sleep | None = None,
    jitter: Callable[[], float] | None = None,
    shared_limits: SharedLimits | None = None,
    capabilities: CapabilityStore | None = None,
) -> ProviderChain:
    """Every provider any purpose's chain names, wired with its guards and fallbacks; with
    `capabilities`, what each endpoint was found to accept outlives the process."""
    wanted: list[ProviderName] = []
    for purpose in PURPOSES:
        for name in settings.chain_for(purpose):
            if name not in wanted:
                wanted.append(name)
    built: dict[str, LLMProvider] = {}
    for name in wanted:
        provider = build_provider(name, settings)
        if provider is not None:
            known = getattr(provider, "capabilities", None)
            if isinstance(known, EndpointCapabilities) and capabilities is not None:
                provider.capabilities = EndpointCapabilities(known.endpoint, capabilities)  # type: ignore[attr-defined]
            built[name] = provider
    if not built:
        _log.warning("no usable LLM provider configured; using the offline provider")
        built["offline"] = OfflineProvider()
    chains = {
        purpose: [name for name in settings.chain_for(purpose) if name in built]
        for purpose in PURPOSES
    }
    for purpose, names in chains.items():
        if not names:
            _log.warning("no usable provider for %s; it will use the offline provider", purpose)
            built.setdefault("offline", OfflineProvider())
            chains[purpose] = ["offline"]
    extra: dict[str, object] = {}
    if sleep is not None:
        extra["sleep"] = sleep
    if jitter is not None:
        extra["jitter"] = jitter
    breakers = CircuitBreakers(
        BreakerPolicy(
            backoff_base_seconds=settings.llm_breaker_backoff_seconds,
            backoff_max_seconds=settings.llm_breaker_max_backoff_seconds,
        ),
        on_change=breaker_listener(telemetry, BreakerStateFile(settings.log_dir)),
    )
    return ProviderChain(
        list(built.values()),
        breakers=breakers,
        chains=chains,
        limits={name: provider_limits(p, settings, shared_limits) for name, p in built.items()},
        policy=retry_policy(settings),
        telemetry=telemetry,
        **extra,  # type: ignore[arg-type]
    )


def build_llm(
    settings: Settings, telemetry: Telemetry, *, pool: asyncpg.Pool | None = None
) -> MemoryLLM:
    """The memory tasks over the configured provider chain (close with `llm.provider.aclose()`).
    With the database `pool`, the requests-per-minute limits hold across processes and what
    each endpoint accepts outlives the process."""
    chain = build_provider_chain(
        settings,
        telemetry,
        shared_limits=SharedRateLimits(pool) if pool is not None else None,
        capabilities=DatabaseCapabilities(pool) if pool is not None else None,
    )
    return MemoryLLM(chain, telemetry=telemetry, offline=OfflineProvider())
