"""Choosing providers, chains and limits from settings."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from memory.core.settings import PROVIDERS as SETTINGS_PROVIDERS
from memory.core.settings import Settings, load_settings
from memory.core.settings_errors import SettingsError
from memory.core.telemetry import Telemetry
from memory.llm._factory import build_llm, build_provider_chain, provider_limits, retry_policy
from memory.llm.offline import OfflineProvider
from memory.llm.providers import (
    PROVIDERS,
    LLMProvider,
    LLMRequest,
    LLMResponse,
    ProviderChain,
    build_provider,
)
from memory.llm.providers.gemini import GeminiProvider
from memory.llm.providers.openai_compat import OpenAICompatibleProvider
from memory.llm.tasks import Intent


def _settings(**overrides: Any) -> Settings:
    defaults: dict[str, Any] = {"gemini_api_key": None, "llm_provider": None}
    return load_settings(**{**defaults, **overrides})


async def test_without_keys_everything_is_offline(telemetry: Telemetry) -> None:
    llm = build_llm(_settings(), telemetry)
    chain = llm.provider
    assert isinstance(chain, ProviderChain)
    assert [type(p) for p in chain.providers] == [OfflineProvider]
    intent = await llm.route(text="who is alice?", bot_name="Bot", author_name="bob")
    assert intent == Intent(kind="whois", target="alice")
    assert telemetry.recent("llm_call")[0]["provider"] == "offline"


async def test_gemini_key_gives_gemini_then_offline() -> None:
    chain = build_provider_chain(_settings(gemini_api_key="k"), Telemetry())
    try:
        assert chain.chain_for("reply") == ["gemini", "offline"]
        gemini = chain.providers[0]
        assert isinstance(gemini, GeminiProvider)
        assert gemini.model_for("daily_summary") == "gemini-2.5-flash"
        assert gemini.model_for("route") == "gemini-2.5-flash-lite"
        limits = provider_limits(gemini, _settings(gemini_api_key="k"))
        assert limits.requests_per_minute == 15 and limits.max_concurrency == 4
        assert limits.model_requests_per_minute == {"gemini-2.5-flash": 10}
    finally:
        await chain.aclose()


async def test_purpose_overrides_for_chains_and_models() -> None:
    settings = _settings(
        gemini_api_key="k",
        llm_purpose_chains="route=offline; daily_summary=gemini",
        gemini_purpose_models="reply=gemini-2.5-pro",
    )
    chain = build_provider_chain(settings, Telemetry())
    try:
        assert chain.chain_for("route") == ["offline"]
        assert chain.chain_for("daily_summary") == ["gemini"]
        assert chain.chain_for("merge") == ["gemini", "offline"]
        assert chain.model_for("reply") == "gemini-2.5-pro"
    finally:
        await chain.aclose()


async def test_openai_provider_from_settings() -> None:
    settings = _settings(
        llm_provider="openai",
        openai_base_url="http://127.0.0.1:9/v1",
        openai_model="qwen2.5",
        openai_requests_per_minute=120,
    )
    chain = build_provider_chain(settings, Telemetry())
    try:
        openai_provider = chain.providers[0]
        assert isinstance(openai_provider, OpenAICompatibleProvider)
        assert chain.chain_for("reply") == ["openai", "offline"]
        assert provider_limits(openai_provider, settings).requests_per_minute == 120
        assert provider_limits(OfflineProvider(), settings).requests_per_minute is None
    finally:
        await chain.aclose()


async def test_gemini_fallback_without_key_is_skipped() -> None:
    chain = build_provider_chain(_settings(llm_fallback="gemini,offline"), Telemetry())
    assert chain.chain_for("reply") == ["offline"]


def test_unknown_purpose_in_overrides_is_a_settings_error() -> None:
    with pytest.raises(SettingsError, match="LLM_PURPOSE_CHAINS"):
        _settings(llm_purpose_chains="routing=offline")


def test_retry_policy_from_settings() -> None:
    policy = retry_policy(_settings(llm_timeout_seconds=10, llm_daily_timeout_seconds=90))
    assert policy.timeout_for("reply") == 10
    assert policy.timeout_for("daily_summary") == 90 and policy.timeout_for("daily_reduce") == 90


@pytest.mark.parametrize(
    ("provider", "module"), [("gemini", "providers.gemini"), ("openai", "providers.openai_compat")]
)
def test_a_provider_whose_sdk_is_not_installed_is_skipped_with_the_fix(
    provider: str, module: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, f"memory.llm.{module}", None)  # as if the extra is absent
    settings = _settings(llm_provider=provider, gemini_api_key="k", llm_fallback="offline")
    chain = build_provider_chain(settings, Telemetry())
    assert chain.chain_for("reply") == ["offline"]
    assert f"pip install 'memorybot[{provider}]'" in caplog.text


class EchoProvider(LLMProvider):
    """A provider added the documented way: one class and one registry line."""

    name = "echo"
    model = ""

    @classmethod
    def from_settings(cls, settings: Settings) -> EchoProvider:
        provider = cls()
        provider.model = settings.openai_model
        return provider

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text=request.prompt, provider=self.name, model=self.model)


def test_every_provider_name_the_settings_accept_is_registered() -> None:
    assert set(PROVIDERS) == set(SETTINGS_PROVIDERS)


def test_a_new_provider_is_one_class_and_one_registry_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PROVIDERS, "echo", f"{__name__}.EchoProvider")
    provider = build_provider("echo", _settings(openai_model="tiny"))
    assert isinstance(provider, EchoProvider) and provider.model == "tiny"


def test_an_unknown_provider_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown LLM provider 'nope'"):
        build_provider("nope", _settings())
