"""all-mpnet-base-v2 as the English leg's model: its relative positions, the packaged pieces
unpacked once, and an index built with it (its vectors against sentence-transformers':
test_sentence_models.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from codelens.errors import BadInput
from codelens.index.build import build_index
from codelens.models import ENGLISH_MODELS, english_model
from codelens.models.sentence import mpnet_dir, relative_position_bias
from codelens.search.english import load_english_vectors
from codelens.search.searcher import Searcher
from codelens.settings import Settings
from tests.conftest import settings_for


def test_relative_position_buckets() -> None:
    table = np.arange(32 * 2, dtype=np.float32).reshape(32, 2)  # bucket b, head h -> 2b + h
    bias = relative_position_bias(table, 300)
    assert bias.shape == (2, 300, 300)
    bucket = bias[0] / 2
    assert bucket[5, 5] == 0 and bucket[5, 4] == 1 and bucket[5, 6] == 17  # before: 0-15, after: 16-31
    assert bucket[0, 7] == 16 + 7 and bucket[7, 0] == 7  # up to 7 apart: one bucket each
    assert bucket[0, 299] == 31 and bucket[299, 0] == 15  # 128 and more apart: the last bucket
    assert np.all(np.diff(bucket[0, 8:]) >= 0)  # further keys never fall in a nearer bucket


@pytest.mark.slow  # joins and unpacks 438 MB into a fresh folder
def test_the_pieces_are_unpacked_once_into_the_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CODELENS_MODEL_CACHE", str(tmp_path))
    folder = mpnet_dir()
    assert folder == tmp_path / "all-mpnet-base-v2"
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    assert mpnet_dir() == folder and (folder / "model.safetensors").stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == ["all-mpnet-base-v2"]  # no staging left behind


def test_an_english_model_is_found_by_its_key_or_its_recorded_name() -> None:
    for model in ENGLISH_MODELS.values():
        assert english_model(model.key) is english_model(model.name) is model
    with pytest.raises(ValueError, match="minilm, mpnet"):
        english_model("bert")


@pytest.mark.slow  # runs MPNet over every chunk
def test_an_index_built_with_mpnet_records_it_and_searches_with_it(tmp_path: Path, embedder,
                                                                  mini_project: Path) -> None:
    settings = Settings(db_path=tmp_path / "chroma_db", show_progress=False, english_model="mpnet")
    build_index(mini_project, settings, embedder=embedder)
    ids, _, vectors, kind = load_english_vectors(settings.db_path)
    assert kind.name == "all-mpnet-base-v2" and vectors.shape == (len(ids), 768)
    searcher = Searcher(settings, embedder=embedder)
    hits = searcher.search("where is the database connection url configured", k=3)
    assert hits[0].chunk.path == "pkg/storage.py"
    assert "all-mpnet-base-v2" in searcher._english_models  # the question went through mpnet

    # the next run without the flag keeps the index's English model
    stats = build_index(mini_project, settings_for(settings.db_path), embedder=embedder)
    assert stats.run["mode"] == "unchanged"
    assert load_english_vectors(settings.db_path)[3].name == "all-mpnet-base-v2"
    # asked for MiniLM, the English vectors are rebuilt with it, nothing else changes
    stats = build_index(mini_project, replace(settings, english_model="minilm"), embedder=embedder)
    assert stats.run["mode"] != "unchanged" and stats.run["embedded"] == 0
    assert load_english_vectors(settings.db_path)[3].name == "all-MiniLM-L6-v2"


def test_an_unknown_english_model_is_refused_before_any_work(tmp_path: Path, embedder, mini_project: Path) -> None:
    settings = Settings(db_path=tmp_path / "chroma_db", show_progress=False, english_model="bert")
    with pytest.raises(BadInput, match="unknown English model"):
        build_index(mini_project, settings, embedder=embedder)
    assert not (tmp_path / "chroma_db").exists()
