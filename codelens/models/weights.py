"""An encoder's weights as plain arrays: what every model's loader produces and the ONNX graph
builder (onnx_graph.py) consumes. Matrices are held as (in, out): x @ W projects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LayerWeights:
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
class EncoderWeights:
    """A BERT-shaped encoder: token ids -> embedded rows (in numpy), then the layers (in the graph)."""

    embed_rows: Callable[[np.ndarray], np.ndarray]  # token ids -> (n, width) float32 rows
    positions: np.ndarray  # (max positions, width)
    token_type: np.ndarray  # (width,)
    embed_norm: tuple[np.ndarray, np.ndarray]
    layers: Sequence[LayerWeights]
    heads: int
    eps: float
    # sequence length -> (heads, length, length) added to every layer's attention scores: MPNet's
    # relative positions (BERT-style models leave it None)
    position_bias: Callable[[int], np.ndarray] | None = None

    @property
    def width(self) -> int:
        return int(self.positions.shape[1])

    def embedded(self, sequences: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(count, length, width) embedded tokens and the (count, length) mask of one padded pass."""
        count, length = len(sequences), max(len(s) for s in sequences)
        mask = np.zeros((count, length), dtype=np.float32)
        ids = np.zeros((count, length), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1.0
        rows = self.embed_rows(ids.reshape(-1)).reshape(count, length, -1)
        return np.ascontiguousarray(rows + self.positions[:length] + self.token_type, dtype=np.float32), mask


@dataclass(frozen=True)
class LayerNames:
    """Where one model keeps a layer's weights, as torch names without `.weight` / `.bias`."""

    qkv: tuple[str, str, str]
    out: str
    norm1: str
    up: str = "intermediate.dense"
    down: str = "output.dense"
    norm2: str = "output.LayerNorm"


def load_layer(weights: dict[str, np.ndarray], prefix: str, names: LayerNames) -> LayerWeights:
    """One encoder layer from torch weights (a Linear stores (out, in): x @ W.T projects)."""
    def w(name: str, part: str) -> np.ndarray:
        return weights[f"{prefix}{name}.{part}"]

    def projection(name: str) -> np.ndarray:
        return np.ascontiguousarray(w(name, "weight").T)

    return LayerWeights(
        qkv=np.ascontiguousarray(np.concatenate([w(n, "weight").T for n in names.qkv], axis=1)),
        qkv_bias=np.concatenate([w(n, "bias") for n in names.qkv]),
        out=projection(names.out), out_bias=w(names.out, "bias"),
        norm1=(w(names.norm1, "weight"), w(names.norm1, "bias")),
        up=projection(names.up), up_bias=w(names.up, "bias"),
        down=projection(names.down), down_bias=w(names.down, "bias"),
        norm2=(w(names.norm2, "weight"), w(names.norm2, "bias")),
    )


def load_layers(weights: dict[str, np.ndarray], count: int, names: LayerNames) -> list[LayerWeights]:
    """`encoder.layer.0.` ... `encoder.layer.{count - 1}.`, as BERT-family checkpoints name them."""
    return [load_layer(weights, f"encoder.layer.{i}.", names) for i in range(count)]
