"""Provider name -> provider class. Adding a provider is one module with an `LLMProvider`
subclass (its `from_settings` reads its own settings) and one line here.

Classes are named by dotted path and imported only when a chain names them: the SDKs are
optional extras and slow to import.
"""

from __future__ import annotations

import importlib
import logging

from memory.core.settings import Settings
from memory.llm.providers._base import LLMProvider

_log = logging.getLogger(__name__)

PROVIDERS: dict[str, str] = {
    "gemini": "memory.llm.providers.gemini.GeminiProvider",
    "openai": "memory.llm.providers.openai_compat.OpenAICompatibleProvider",
    "offline": "memory.llm.offline.OfflineProvider",
}


def provider_class(name: str) -> type[LLMProvider]:
    """The class registered under `name` (ImportError when its SDK is not installed)."""
    try:
        path = PROVIDERS[name]
    except KeyError:
        raise ValueError(f"unknown LLM provider {name!r}") from None
    module, _, attribute = path.rpartition(".")
    cls: type[LLMProvider] = getattr(importlib.import_module(module), attribute)
    return cls


def build_provider(name: str, settings: Settings) -> LLMProvider | None:
    """One provider from settings, or None when it is not usable as configured."""
    try:
        cls = provider_class(name)
    except ImportError:
        _log.warning(
            "%s is in the LLM chain but its SDK is not installed (pip install 'memorybot[%s]');"
            " skipping it",
            name,
            name,
        )
        return None
    return cls.from_settings(settings)
