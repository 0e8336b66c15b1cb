"""Embeddings with no API key and no network: WordLlama's static token embeddings (`wordllama`,
a base dependency), whose 256-d weights and tokenizer ship inside its wheel.

A text's vector is the mean of its tokens' vectors, normalised: no neural network runs, so it
is cheap enough to embed every message as it is stored (`python -m bench --only embeddings`).
Why this model and not a sentence encoder: docs/design.md, "Local embeddings".

Only the package's files are read (found without importing it: its inference module configures
the root logger on import, and its loader falls back to a download). Its vectors are stored
at their own 256 components (V028 indexes that width).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from memory.llm.embeddings._token_vectors import TablePreparation
from memory.llm.providers import LLMUnavailable

_log = logging.getLogger(__name__)

PACKAGE = "wordllama"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
# Tokens read per text: a message past this is long enough that its start says what it is about.
MAX_TOKENS = 256
# Components of the bundled table's vectors (a table of another width is refused on load).
WIDTH = 256
# How the tokenizer marks a token that starts a word (SentencePiece's lower one-eighth block).
WORD_MARK = "\u2581"


def package_dir() -> Path:
    """Where the installed wordllama package keeps its files (LLMUnavailable when it is not
    installed or lacks the bundled weights)."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        root = Path(location)
        if (root / WEIGHTS).is_file() and (root / TOKENIZER).is_file():
            return root
    raise LLMUnavailable(f"{PACKAGE} is not installed with its bundled weights ({WEIGHTS})")


class StaticEmbedding:
    """The token table and tokenizer, loaded once; `encode` is plain numpy (call it off the
    event loop: a batch of 100 messages takes a few milliseconds)."""

    def __init__(self, root: Path) -> None:
        self._table = load_file(str(root / WEIGHTS))["embedding.weight"]  # float16, 16 MB
        self._tokenizer = Tokenizer.from_file(str(root / TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self.width = int(self._table.shape[1])
        # Each token's letters by id, without the word mark (read here, off a search's path).
        self.pieces = _pieces(self._tokenizer)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (a text with no token gets zeros). Unpadded: each text's
        tokens are summed where they lie in one flat array (chat lengths vary a hundredfold)."""
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
        flat = np.fromiter((i for e in encodings for i in e.ids), dtype=np.int64)
        np.clip(flat, 0, self._table.shape[0] - 1, out=flat)
        summed = np.zeros((len(texts), self.width), dtype=np.float32)
        if flat.size:
            owner = np.repeat(np.arange(len(texts)), lengths)
            np.add.at(summed, owner, self._table[flat].astype(np.float32))
        norms = np.linalg.norm(summed, axis=1, keepdims=True)
        return np.asarray(summed / np.maximum(norms, 1e-9), dtype=np.float32)

    def token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's token ids, for a match word by word (memory/recall/_soft_terms.py)."""
        encodings = self._tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        return [np.array(encoding.ids, dtype=np.int64) for encoding in encodings]

    def unit_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The tokens' own vectors, each of unit length."""
        rows = self._table[np.clip(ids, 0, self._table.shape[0] - 1)].astype(np.float32)
        rows = rows.reshape(len(ids), self.width)
        return np.asarray(rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9))


def _pieces(tokenizer: Tokenizer) -> tuple[str, ...]:
    """Each token's letters by id: one read of the vocabulary (30 ms), where asking it token
    by token on a search's path took longer."""
    pieces = [""] * tokenizer.get_vocab_size()
    for piece, token_id in tokenizer.get_vocab().items():
        if token_id < len(pieces):
            pieces[token_id] = piece.lstrip(WORD_MARK)
    return tuple(pieces)


def _prepared(prepare: TablePreparation, table: StaticEmbedding) -> None:
    try:
        prepare(table)
    except Exception:  # a preparation saves time; its failure costs none
        _log.exception("preparing for the local token table failed")


class LocalEmbeddings:
    """The EmbeddingModel of the default install: loads the table on first use (a process that
    never recalls never pays the 16 MB), embeds in a worker thread."""

    name = "local"
    model = "wordllama-l2-supercat-256"
    # Averaged token vectors: an unrelated message is rarely past 0.1 from a question, while
    # most answers in other words are (the embeddings bench prints both fractions).
    min_similarity = 0.1
    width = WIDTH

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._loaded: StaticEmbedding | None = None
        self._lock = threading.Lock()
        self._loading = False
        self._preparations: list[TablePreparation] = []

    def warm(self) -> bool:
        """Whether the table is loaded; if not, load it in a thread and say False, so a search
        goes on with full text instead of waiting for the load."""
        if self._loaded is not None:
            return True
        if not self._loading:
            self._loading = True
            name = "memorybot-embeddings-load"
            threading.Thread(target=self._load, name=name, daemon=True).start()
        return False

    def _load(self) -> None:
        try:
            self._embedding()
        except Exception as exc:  # said again, raised, by the next embed
            _log.warning("local embeddings could not be loaded: %s", exc)
        finally:
            self._loading = False

    def _embedding(self) -> StaticEmbedding:
        with self._lock:
            if self._loaded is None:
                loaded = StaticEmbedding(self._root or package_dir())
                if loaded.width != WIDTH:
                    raise LLMUnavailable(f"{WEIGHTS} holds {loaded.width}-d vectors, not {WIDTH}")
                for prepare in self._preparations:
                    _prepared(prepare, loaded)
                self._loaded = loaded
                _log.info("local embeddings loaded (%s, %d dimensions)", self.model, WIDTH)
            return self._loaded

    def when_loaded(self, prepare: TablePreparation) -> None:
        """Run `prepare` with the table in the thread that loads it, before any search can
        use it (at once when it is loaded already). It runs under the load's lock: it gets the
        table itself and must not call back into this model."""
        with self._lock:
            self._preparations.append(prepare)
            loaded = self._loaded
        if loaded is not None:
            _prepared(prepare, loaded)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of WIDTH components."""
        return self._embedding().encode(texts)

    def token_table(self) -> StaticEmbedding | None:
        """The tokenizer and table; None while they are not loaded yet (they start loading: a
        search goes on without them rather than wait)."""
        return self._embedding() if self.warm() else None

    async def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        if not texts:
            return []
        vectors = await asyncio.to_thread(self.encode, texts)
        return [row.tolist() for row in vectors]

    async def aclose(self) -> None:
        return None
