"""The provider chain: per-purpose fallback over guarded providers, itself an `LLMProvider`.

Each provider gets its own guards: a requests-per-minute limiter (per model, since Gemini's
quotas are per model), a concurrency cap and a per-attempt timeout. Transient failures
(429, 5xx, timeouts) are retried with exponential backoff and jitter; a request the provider
rejected is not. When a provider gives up, the next one in the purpose's chain answers, and
every provider tried leaves one `llm_call` telemetry event.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

from memory.core.telemetry import Telemetry
from memory.llm.providers._attempts import Attempts
from memory.llm.providers._base import (
    LLMBadOutput,
    LLMError,
    LLMProvider,
    LLMRateLimited,
    LLMRequest,
    LLMResponse,
    LLMTimedOut,
    LLMUnavailable,
    Purpose,
)
from memory.llm.providers._breaker import CircuitBreakers
from memory.llm.providers._breaker_report import breaker_listener
from memory.llm.providers._chain_events import ChainEvents, GaveUp
from memory.llm.providers._guarded import Guarded, ProviderLimits
from memory.llm.providers._retry import RetryPolicy
from memory.llm.providers._tracking import answered_by

_log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class LLMQueueTimeout(LLMRateLimited):
    """Our own rate limiter or concurrency cap had no slot in time; retrying only queues again."""

    retryable = False


class ProviderChain(LLMProvider):
    """Try the purpose's providers in order; guard, retry and record each of them."""

    name = "chain"

    def __init__(
        self,
        providers: Sequence[LLMProvider],
        *,
        chains: Mapping[str, Sequence[str]] | None = None,
        limits: Mapping[str, ProviderLimits] | None = None,
        policy: RetryPolicy | None = None,
        telemetry: Telemetry,
        sleep: Sleep = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
        breakers: CircuitBreakers | None = None,
    ) -> None:
        if not providers:
            raise ValueError("a provider chain needs at least one provider")
        limits = limits or {}
        self._guarded = {
            provider.name: Guarded(provider, limits.get(provider.name, ProviderLimits()))
            for provider in providers
        }
        self._default = [provider.name for provider in providers]
        self._chains = {purpose: list(names) for purpose, names in (chains or {}).items()}
        unknown = {n for names in self._chains.values() for n in names} - self._guarded.keys()
        if unknown:
            raise ValueError(f"provider chain names unknown providers: {sorted(unknown)}")
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._jitter = jitter
        # One per (provider, model): a dead endpoint is skipped instead of tried on every call.
        self.breakers = breakers or CircuitBreakers(on_change=breaker_listener(telemetry))
        self.events = ChainEvents(telemetry, self.breakers, self.policy)
        # May this purpose call now? (the daily token budget holds background purposes)
        self.gate: Callable[[str], Awaitable[bool]] | None = None

    def chain_for(self, purpose: str) -> list[str]:
        return self._chains.get(purpose, self._default)

    def token_limit_for(self, purpose: str) -> int | None:
        """The smallest prompt limit of the purpose's providers: a prompt must fit whichever
        of them ends up answering it."""
        limits = [
            limit
            for name in self.chain_for(purpose)
            if (limit := self._guarded[name].provider.prompt_token_limit) is not None
        ]
        return min(limits) if limits else None

    def model_for(self, purpose: Purpose) -> str:
        names = self.chain_for(purpose)
        return self._guarded[names[0]].provider.model_for(purpose) if names else ""

    @property
    def providers(self) -> list[LLMProvider]:
        return [guarded.provider for guarded in self._guarded.values()]

    async def complete(self, request: LLMRequest) -> LLMResponse:
        names = self.chain_for(request.purpose)
        if not names:
            raise LLMUnavailable(f"no provider configured for {request.purpose}")
        if self.gate is not None and not await self.gate(request.purpose):
            raise LLMUnavailable(f"{request.purpose} waits: the daily token budget is spent")
        last_error: LLMError | None = None
        for index, name in enumerate(names):
            guarded = self._guarded[name]
            model = guarded.provider.model_for(request.purpose)
            started = time.perf_counter()
            is_last = index == len(names) - 1
            skipped, error = self.events.passed_over(request, names, index, model, started)
            if skipped:
                last_error = error or last_error
                continue
            attempts = Attempts()
            try:
                response = await self._within_deadline(guarded, model, request, attempts)
            except asyncio.CancelledError:
                # The caller's budget ran out (reply path); record it, then let it propagate.
                self.breakers.released(name, model)
                unanswered = {"attempt_errors": attempts.ended_unanswered("CancelledError")}
                self.events.emit(
                    request, name, model, started, outcome="cancelled", retries=0, **unanswered
                )
                raise
            except GaveUp as gave_up:
                last_error = gave_up.error
                following = None if is_last else names[index + 1]
                self.events.gave_up(request, name, model, started, gave_up, attempts, following)
                continue
            self.events.emit(
                request,
                name,
                response.model or model,
                started,
                outcome="ok",
                retries=response.retries,
                input_tokens=response.input_tokens,
                output_tokens=response.output_tokens,
                tokens_estimated=response.tokens_estimated or None,
                fallback_from=names[index - 1] if index else None,
                attempt_errors=attempts.errors,
            )
            answered = answered_by.get()
            if answered is not None:
                answered.append(name)
            return response
        assert last_error is not None
        raise last_error

    async def _within_deadline(
        self, guarded: Guarded, model: str, request: LLMRequest, attempts: Attempts
    ) -> LLMResponse:
        deadline = self.policy.deadline_for(request.purpose, guarded.provider.name)
        if deadline is None:
            return await self._with_retries(guarded, model, request, attempts)
        try:
            async with asyncio.timeout(deadline):
                return await self._with_retries(guarded, model, request, attempts)
        except TimeoutError:
            error = LLMUnavailable(
                f"{guarded.provider.name}: no answer within the {deadline}s an interactive"
                f" {request.purpose} may wait"
            )
            attempts.errors = attempts.ended_unanswered(type(error).__name__)
            raise GaveUp(error, 0) from None

    async def _with_retries(
        self, guarded: Guarded, model: str, request: LLMRequest, attempts: Attempts
    ) -> LLMResponse:
        retries = 0
        bad_output_left = self.policy.bad_output_retries
        transient_left = self.policy.max_retries
        name = guarded.provider.name
        while True:
            try:
                # A retry goes in the slot its first attempt took: rate-limit slots are for work.
                attempts.started += 1
                response = await self._attempt(guarded, model, request, take_slot=retries == 0)
                self.breakers.succeeded(name, model)
                return replace(
                    response,
                    retries=retries,
                    provider=response.provider or guarded.provider.name,
                    model=response.model or model,
                )
            except LLMError as exc:
                error: LLMError = exc
                attempts.errors.append(type(exc).__name__)
                self.breakers.failed(name, model, error)
            except Exception as exc:  # a provider bug must not take the whole chain down
                attempts.errors.append(type(exc).__name__)
                _log.exception("provider %s crashed on %s", guarded.provider.name, request.purpose)
                raise GaveUp(LLMUnavailable(f"{type(exc).__name__}: {exc}"), retries) from exc
            # One more try on unparseable output: it is usually a sampling or truncation
            # glitch that a second sample fixes, and costs at most one extra request.
            delay: float | None
            if self.breakers.is_open(name, model):
                delay = None  # the model is down: the next provider answers, now
            elif isinstance(error, LLMBadOutput) and error.resample and bad_output_left > 0:
                bad_output_left -= 1
                delay = 0.0
            elif error.retryable and transient_left > 0:
                transient_left -= 1
                delay = self.policy.delay(
                    self.policy.max_retries - transient_left - 1, error.retry_after, self._jitter()
                )
            else:
                delay = None
            if delay is None:
                raise GaveUp(error, retries)
            retries += 1
            _log.info(
                "llm %s via %s: %s; retry %d in %.2fs",
                request.purpose,
                guarded.provider.name,
                type(error).__name__,
                retries,
                delay,
            )
            if delay > 0:
                await self._sleep(delay)

    async def _attempt(
        self, guarded: Guarded, model: str, request: LLMRequest, *, take_slot: bool = True
    ) -> LLMResponse:
        """One guarded call: wait for a slot (bounded), then call within the timeout."""
        semaphore = guarded.semaphore
        limiter = guarded.limiter(model) if take_slot else None
        acquired = False
        try:
            try:
                async with asyncio.timeout(self.policy.queue_timeout):
                    if semaphore is not None:
                        await semaphore.acquire()
                        acquired = True
                    if limiter is not None:
                        await limiter.acquire()
            except TimeoutError:
                raise LLMQueueTimeout(
                    f"{guarded.provider.name}: no request slot within "
                    f"{self.policy.queue_timeout}s (local rate limit)"
                ) from None
            timeout = self.policy.timeout_for(request.purpose, guarded.provider.name)
            try:
                async with asyncio.timeout(timeout):
                    return await guarded.provider.complete(request)
            except TimeoutError:
                raise LLMTimedOut(f"{guarded.provider.name}: no answer within {timeout}s") from None
        finally:
            if acquired and semaphore is not None:
                semaphore.release()

    async def aclose(self) -> None:
        for guarded in self._guarded.values():
            try:
                await guarded.provider.aclose()
            except Exception:  # closing is best effort at shutdown
                _log.exception("closing provider %s failed", guarded.provider.name)
