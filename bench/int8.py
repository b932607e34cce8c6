"""int8 on onnxruntime against the fp32 graphs the product runs: throughput, the share of the
machine's matrix ceiling, and how far the vectors move.

    python bench/int8.py [--sample 240] [--rounds 3] [--only e5p,minilm,words] [--alone]
        [--variants fp32,dyn-all,dyn-no-down,dyn-matmul,dyn-ffn-up,static-matmul]
    python bench/int8.py --batches dyn-no-down     # how an int8 vector moves with its batch

Rows: e5 passages and MiniLM passages (the demo's chunk texts, as the index embeds them),
the bridge's words (the demo's vocabulary as e5 questions, batched as an index run does).
Variants, each built from the product's fp32 graph (codelens/models/runtime.py):
- `fp32`: the graph the product runs;
- `dyn-all`: dynamic quantisation, int8 weights per channel, of every MatMul and of the fused
  Attention's q/k/v projection (the product's `int8=True`);
- `dyn-no-down`: `dyn-all` but for each layer's second feed-forward MatMul (its input is
  GELU's output, with outliers that a per-batch int8 range cuts coarsely): what ships for e5
  and MiniLM (runtime.INT8_MODELS, INT8_KEEP_FP32; the same vectors to the bit);
- `dyn-matmul`: the same for the MatMuls only: attention (with its projections), layer norms
  and GELU stay fp32;
- `dyn-ffn-up`: only each layer's first feed-forward MatMul (its input is a layer norm's
  output, well behaved; the second one's input is GELU's, with outliers);
- `static-matmul`: static QDQ quantisation of the MatMuls, per-channel weights, activation
  ranges calibrated (min/max) on another corpus (httpx's chunks), so a vector never depends
  on the other texts of its batch.
FLOPs come from the real token counts of each pass (matrix products of every layer plus the
attention scores over the real lengths); the ceiling is numpy's fp32 matrix product on this
machine (2 threads, 512x384 @ 384x1536 and 512x1536 @ 1536x384, best of several). Rounds are
interleaved; texts/s is the best round. fp32 batches texts into passes (runtime.passes); with
`--alone` the int8 variants run each text in a pass of its own (what the product does: a text's
vector then never depends on its batch). State the load (`uptime`) beside the numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from _common import PROJECT_ROOT, SHARED, print_table

VARIANTS = ("fp32", "dyn-all", "dyn-no-down", "dyn-matmul", "dyn-ffn-up", "static-matmul")
CACHE = PROJECT_ROOT / ".bench_cache" / "int8"
_CALIBRATION_TEXTS = 96


def matrix_ceiling(threads: int = 2, repeats: int = 20) -> float:
    """GFLOP/s of numpy's fp32 matrix product at the encoder's shapes, best of `repeats`."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    shapes = [((512, 384), (384, 1536)), ((512, 1536), (1536, 384))]
    best = 0.0
    with threadpool_limits(limits=threads, user_api="blas"):
        for left, right in shapes:
            a = rng.standard_normal(left, dtype=np.float32)
            b = rng.standard_normal(right, dtype=np.float32)
            a @ b
            for _ in range(repeats):
                start = time.perf_counter()
                a @ b
                best = max(best, 2 * left[0] * left[1] * right[1] / (time.perf_counter() - start) / 1e9)
    return best


def demo_chunks() -> list:
    from codelens.ingest.codebase import chunk_source
    from codelens.settings import Settings

    return chunk_source(SHARED / "codebase_python.zip", Settings(show_progress=False).max_file_bytes).chunks


def chunk_texts(chunks: Sequence, sample: int) -> list[str]:
    from codelens.ingest.embed_text import embedding_text
    from codelens.settings import Settings

    budget = Settings(show_progress=False).embed_code_chars
    texts = [embedding_text(c, budget) for c in chunks]
    step = max(1, len(texts) // sample) if sample else 1
    return texts[::step][:sample] if sample else texts


def calibration_texts() -> list[str]:
    """Texts of another repository than the measured one: static ranges are not fitted to the demo."""
    from codelens.ingest.codebase import chunk_source
    from codelens.ingest.embed_text import embedding_text
    from codelens.settings import Settings

    settings = Settings(show_progress=False)
    chunks = chunk_source(SHARED / "benchmarks" / "semble_py_dev" / "httpx.zip", settings.max_file_bytes).chunks
    step = max(1, len(chunks) // _CALIBRATION_TEXTS)
    return [embedding_text(c, settings.embed_code_chars) for c in chunks[::step][:_CALIBRATION_TEXTS]]


def named(source: Path, target: Path) -> Path:
    """The graph with every node named after its weight (quantisation picks nodes by name) and
    every intermediate tensor's type declared (onnx's type inference stops at com.microsoft's
    Attention, and the quantiser skips what it cannot type)."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(source))
    weights = {i.name for i in model.graph.initializer}
    outputs = {o.name for o in model.graph.output}
    for index, node in enumerate(model.graph.node):
        weight = next((name for name in node.input if name in weights), "")
        node.name = f"{node.op_type}:{index}:{weight}"
        kind = TensorProto.INT32 if node.op_type == "Cast" else TensorProto.FLOAT
        model.graph.value_info.extend(helper.make_tensor_value_info(name, kind, None)
                                      for name in node.output if name not in outputs)
    onnx.save(model, str(target))
    return target


def build_variant(source: Path, variant: str, target: Path, calibration: Callable[[], list[dict]]) -> Path:
    """`variant`'s graph from the fp32 `source`, cached at `target`."""
    if variant == "fp32" or target.is_file():
        return source if variant == "fp32" else target
    from onnx import TensorProto
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    target.parent.mkdir(parents=True, exist_ok=True)
    base = named(source, target.with_suffix(".named.onnx"))
    import onnx

    nodes = [n.name for n in onnx.load(str(base)).graph.node]
    matmuls = [n for n in nodes if n.startswith("MatMul:")]
    # onnx's shape inference knows no com.microsoft operator: what follows one is float
    extra = {"DefaultTensorType": TensorProto.FLOAT}
    if variant == "dyn-all":
        quantize_dynamic(str(base), str(target), weight_type=QuantType.QInt8, per_channel=True, extra_options=extra)
    elif variant == "dyn-no-down":
        chosen = [n for n in nodes if n.startswith(("MatMul:", "Attention:")) and not n.endswith(".down.weight")]
        quantize_dynamic(str(base), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=chosen, extra_options=extra)
    elif variant in ("dyn-matmul", "dyn-ffn-up"):
        chosen = matmuls if variant == "dyn-matmul" else [n for n in matmuls if n.endswith(".up.weight")]
        quantize_dynamic(str(base), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=chosen, extra_options=extra)
    elif variant == "static-matmul":
        feeds = calibration()

        class Reader(CalibrationDataReader):
            def __init__(self) -> None:
                self._feeds = iter(feeds)

            def get_next(self) -> dict | None:
                return next(self._feeds, None)

        quantize_static(str(base), str(target), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_quantize=matmuls, calibrate_method=CalibrationMethod.MinMax,
                        extra_options={**extra, "ActivationSymmetric": False})
    else:
        raise SystemExit(f"unknown variant {variant}")
    base.unlink()
    return target


class Counted:
    """The model's encoder, swapped for a variant's graph, counting the tokens it runs."""

    def __init__(self, model: object, graph: Path, layers: int, ffn: int, alone: bool = False) -> None:
        from codelens.models.runtime import OnnxEncoder

        self.encoder = OnnxEncoder(model._encoder.weights, graph, alone=alone)
        self.layers, self.ffn, self.width = layers, ffn, model._encoder.weights.width
        self.tokens = 0
        self.flops = 0.0

    def mean_pooled(self, sequences: Sequence[np.ndarray]) -> np.ndarray:
        lengths = [len(s) for s in sequences]
        w = self.width
        for n in lengths:
            self.tokens += n
            self.flops += self.layers * (2 * n * (4 * w * w + 2 * w * self.ffn) + 4 * n * n * w)
        return self.encoder.mean_pooled(sequences)


def calibration_feeds(model: object, texts: list[str], encode_ids: Callable[[str], np.ndarray]) -> list[dict]:
    """One feed (embedded, mask) per pass of the calibration texts, as OnnxEncoder builds them."""
    from codelens.models import onnx_graph
    from codelens.models.runtime import passes

    sequences = [encode_ids(t) for t in texts]
    weights = model._encoder.weights
    feeds = []
    for group in passes([len(s) for s in sequences]):
        embedded, mask = weights.embedded([sequences[i] for i in group])
        feeds.append({onnx_graph.EMBEDDED: embedded, onnx_graph.MASK: mask})
    return feeds


def model_row(kind: str) -> tuple[object, Callable[[object], Callable[[list[str]], np.ndarray]], Path, int, int,
                                  Callable[[str], np.ndarray]]:
    """(model, embed function of a model, its fp32 graph, layers, ffn width, text -> calibration ids)."""
    from codelens.models.e5 import E5, GRAPH_NAME, weights_version
    from codelens.models.embedders import QUESTION_TOKENS
    from codelens.models.runtime import graph_path
    from codelens.models.sentence import MINILM_NAME, MINILM_PACKAGE, MiniLM, _version

    if kind in ("e5p", "words"):
        model = E5()
        e5_graph = graph_path(GRAPH_NAME, weights_version())  # fp32: what every variant is built from
        vocabulary = model._vocabulary

        def ids(text: str) -> np.ndarray:
            return np.asarray([vocabulary.bos, *model.token_ids("passage: " + text)[:510], vocabulary.eos])

        if kind == "e5p":
            return model, lambda m: m.embed_passages, e5_graph, 12, 1536, ids
        return model, lambda m: (lambda texts: m.embed_queries(texts, max_tokens=QUESTION_TOKENS)), e5_graph, 12, \
            1536, ids
    model = MiniLM()
    tokenizer = model._tokenizer

    def minilm_ids(text: str) -> np.ndarray:
        return np.asarray(tokenizer.encode(text).ids)

    return (model, lambda m: m.embed_passages, graph_path(MINILM_NAME, _version(MINILM_PACKAGE)), 6, 1536,
            minilm_ids)


def with_variant(kind: str, variant: str, alone: bool = False) -> object:
    """A model ("e5" or "minilm") running `variant`'s graph (bench/engine_floors.py); `alone`: an
    int8 variant runs each text in a pass of its own, as the product does."""
    from codelens.models.runtime import OnnxEncoder

    model, _embed, fp32_graph, _layers, _ffn, ids = model_row("e5p" if kind == "e5" else kind)
    if variant != "fp32":
        graph = build_variant(fp32_graph, variant, CACHE / f"{kind}-{variant}.onnx",
                              lambda: calibration_feeds(model, calibration_texts(), ids))
        model._encoder = OnnxEncoder(model._encoder.weights, graph, alone=alone)
    return model


def measure(kind: str, texts: list[str], variants: Sequence[str], rounds: int, ceiling: float,
            alone: bool = False) -> list[list[object]]:
    model, embed_of, fp32_graph, layers, ffn, ids = model_row(kind)
    calibration_cache: list[dict] = []

    def calibration() -> list[dict]:
        if not calibration_cache:
            calibration_cache.extend(calibration_feeds(model, calibration_texts(), ids))
        return calibration_cache

    graph_kind = "e5" if kind in ("e5p", "words") else "minilm"
    counted = {v: Counted(model, build_variant(fp32_graph, v, CACHE / f"{graph_kind}-{v}.onnx", calibration),
                          layers, ffn, alone and v != "fp32") for v in variants}
    original = model._encoder
    rates = {v: 0.0 for v in variants}
    gflops = {v: 0.0 for v in variants}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for variant, encoder in counted.items():
            model._encoder = encoder
            encoder.tokens, encoder.flops = 0, 0.0
            start = time.perf_counter()
            vectors[variant] = embed_of(model)(texts)
            seconds = time.perf_counter() - start
            if len(texts) / seconds > rates[variant]:
                rates[variant], gflops[variant] = len(texts) / seconds, encoder.flops / seconds / 1e9
    model._encoder = original
    rows = []
    for variant in variants:
        cosines = (vectors[variant] * vectors["fp32"]).sum(axis=1)
        rows.append([kind, variant, len(texts), round(rates[variant], 1), round(rates[variant] / rates["fp32"], 2),
                     round(counted[variant].tokens / len(texts)), round(gflops[variant], 1),
                     f"{100 * gflops[variant] / ceiling:.0f}%", f"{cosines.min():.5f}", f"{cosines.mean():.5f}"])
    return rows


def batch_dependence(texts: list[str], variant: str, rounds: int) -> list[list[object]]:
    """How far an int8 variant's e5 vector moves with its batch: the texts embedded with several
    pass budgets, then again shuffled into batches of 7 (a text alone in its pass: budget 1)."""
    from codelens.models import runtime

    reference = with_variant("e5", "fp32").embed_passages(texts)
    rows = []
    for budget, alone in ((runtime.TOKENS_PER_PASS, False), (1024, False), (256, False), (1, True)):
        model = with_variant("e5", variant, alone)
        best, vectors = 0.0, None
        with _pass_budget(runtime, budget):
            for _ in range(rounds):
                start = time.perf_counter()
                vectors = model.embed_passages(texts)
                best = max(best, len(texts) / (time.perf_counter() - start))
            order = np.random.default_rng(1).permutation(len(texts))
            again = np.zeros_like(vectors)
            for first in range(0, len(texts), 7):
                batch = order[first : first + 7]
                again[batch] = model.embed_passages([texts[i] for i in batch])
        cosines = (vectors * reference).sum(axis=1)
        rows.append(["1 text per pass" if alone else budget, round(best, 1), f"{cosines.min():.5f}",
                     f"{(vectors * again).sum(axis=1).min():.6f}",
                     f"{int((vectors == again).all(axis=1).sum())} of {len(texts)}"])
    return rows


@contextlib.contextmanager
def _pass_budget(runtime: object, budget: int) -> Iterator[None]:
    """runtime.passes with another token budget for a while."""
    saved = runtime.passes.__defaults__
    runtime.passes.__defaults__ = (budget,)
    try:
        yield
    finally:
        runtime.passes.__defaults__ = saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=240, help="chunk texts per passage row (0: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="e5p,minilm,words")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--alone", action="store_true", help="int8 variants: one text per pass (as the product runs)")
    parser.add_argument("--batches", metavar="VARIANT", help="only the table of how an e5 vector of VARIANT moves "
                        "with its batch (pass budgets, then the texts shuffled into batches of 7)")
    args = parser.parse_args(argv)
    if args.batches:
        rows = batch_dependence(chunk_texts(demo_chunks(), args.sample), args.batches, args.rounds)
        print_table(["tokens per pass", "texts/s", "min cos vs fp32", "other batches: min cos", "identical"], rows)
        return
    variants = args.variants.split(",")
    if "fp32" not in variants:
        variants.insert(0, "fp32")
    from codelens.search.bridge import bridge_vocabulary

    ceiling = matrix_ceiling()
    print(f"matrix ceiling (numpy fp32, 2 threads): {ceiling:.0f} GFLOP/s; load {os.getloadavg()[0]:.1f}",
          flush=True)
    chunks = demo_chunks()
    rows: list[list[object]] = []
    for kind in args.only.split(","):
        texts = bridge_vocabulary(chunks) if kind == "words" else chunk_texts(chunks, args.sample)
        rows += measure(kind, texts, variants, args.rounds, ceiling, args.alone)
        print(f"load: {os.getloadavg()[0]:.1f} after {kind}", file=sys.stderr, flush=True)
    print_table(["model", "variant", "texts", "texts/s", "x fp32", "tokens/text", "GFLOP/s", "of ceiling",
                 "min cos vs fp32", "mean cos vs fp32"], rows)


if __name__ == "__main__":
    main()
