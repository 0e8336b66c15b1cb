"""Provider errors the admin must see: the server's own words and the fix, once.

A misconfigured provider (a model Ollama has not pulled, a wrong key, a wrong base URL) fails
every call the same way; the chain then quietly falls back, so the only trace used to be an
INFO line naming an exception class. Providers report such errors here: the first occurrence
of each distinct problem is logged at WARNING with what to change, later ones stay quiet.
"""

from __future__ import annotations

import logging

_log = logging.getLogger("memory.llm")

_MAX_REMEMBERED = 256


class ProblemLog:
    """Remembers which problems were already shown (per provider instance)."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._seen: set[str] = set()

    def report(self, what: str, fix: str) -> bool:
        """Log `what` and `fix` at WARNING the first time; True when it was logged."""
        key = what.strip()
        if key in self._seen:
            return False
        if len(self._seen) < _MAX_REMEMBERED:
            self._seen.add(key)
        _log.warning("%s: %s; %s", self.provider, key, fix)
        return True
