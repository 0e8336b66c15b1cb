"""Token counts for answers no server counted (the offline provider's), and the bench's tokenizer.

With the `bench` extra installed, `bpe-openai`'s o200k_base BPE counts (its vocabulary ships
inside the package: nothing is downloaded); without it, `memory.core.tokens.estimate_tokens`
(about four characters a token, non-ASCII characters one each). Either way the count is an
estimate of what a model would have billed, and usage marks it as one.

Loading the BPE takes about half a second, so it loads once per process in a background
thread: `estimated_tokens` never waits for it (the offline provider must never be slow) and
counts with the chars/4 estimate until it is there; `count_tokens` (the bench) waits, so its
figures always come from one tokenizer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from memory.core.tokens import estimate_tokens

_log = logging.getLogger(__name__)

ESTIMATE = "estimate"  # the chars/4 estimate (bench figures name it so)


class _Tokenizer:
    """The process's one tokenizer, loaded on first use off the calling thread."""

    def __init__(self) -> None:
        self.name = ESTIMATE
        self._count: Callable[[str], int] = estimate_tokens
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._load, name="memorybot-tokenizer", daemon=True).start()

    def _load(self) -> None:
        try:
            import bpe_openai
        except ImportError:
            self._ready.set()
            return
        try:
            encoding = bpe_openai.get_encoding("o200k_base")
            # Ordinary: member text may hold "<|endoftext|>", which `encode` refuses.
            self._count = lambda text: len(encoding.encode_ordinary(text))
            self.name = "o200k_base (bpe-openai)"
        except Exception:  # a broken install counts with the estimate, it does not fail calls
            _log.exception("bpe-openai did not load; tokens are estimated as chars/4")
        finally:
            self._ready.set()

    def count(self, text: str, *, wait: bool) -> int:
        if not text:
            return 0
        self.start()
        if wait:
            self._ready.wait()
        return self._count(text)

    def loaded_name(self) -> str:
        self.start()
        self._ready.wait()
        return self.name


_TOKENIZER = _Tokenizer()


def estimated_tokens(text: str) -> int:
    """Tokens of `text` for usage: the BPE once loaded, the chars/4 estimate until then."""
    return _TOKENIZER.count(text, wait=False)


def count_tokens(text: str) -> int:
    """Tokens of `text` with the bench's tokenizer (waits for it to load: same figures each run)."""
    return _TOKENIZER.count(text, wait=True)


def tokenizer_name() -> str:
    """Which tokenizer `count_tokens` uses, for figures to say so."""
    return _TOKENIZER.loaded_name()
