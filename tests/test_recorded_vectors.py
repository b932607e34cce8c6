"""The fast tier's recorded vectors (tests/recorded_vectors.py): the models' own vectors, each
text embedded once, the record kept between runs only for the same weights and model code."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from codelens.index.embed_cache import text_hash
from tests.recorded_vectors import Recorder, model_fingerprint, recorded_e5_class


class CountingModel:
    """Stands in for a model to count what reaches it: a vector from each text's hash."""

    model_id, dim = "counting", 8

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_queries(self, texts):
        self.calls.append(list(texts))
        return np.stack([np.frombuffer(bytes.fromhex(text_hash(t))[:32], dtype=np.uint8)[:8] / 255.0
                         for t in texts]).astype(np.float32) if texts else np.zeros((0, 8), np.float32)

    embed_passages = embed_queries


def test_each_text_reaches_the_model_once_and_comes_back_in_order() -> None:
    recorder = Recorder()
    recorded = recorded_e5_class(CountingModel, recorder)()
    first = recorded.embed_queries(["a", "b", "a"])
    again = recorded.embed_queries(["b", "c"])
    assert recorded.calls == [["a", "b"], ["c"]]  # duplicates and known texts never reach the model
    direct = CountingModel().embed_queries(["a", "b", "a", "c"])
    np.testing.assert_array_equal(first, direct[:3])
    np.testing.assert_array_equal(again, direct[[1, 3]])
    recorded.embed_passages(["a"])  # passages are another key: the model sees "a" again
    assert recorded.calls[-1] == ["a"] and recorder.embedded == 4
    assert recorded.embed_queries([]).shape == (0, 8)


def test_the_record_is_kept_for_the_same_fingerprint_only(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    recorded_e5_class(CountingModel, recorder)().embed_queries(["kept"])
    recorder.save()
    assert [p.name for p in tmp_path.iterdir()] == [f"{model_fingerprint()}.pickle"]
    reloaded = recorded_e5_class(CountingModel, Recorder(tmp_path))()
    reloaded.embed_queries(["kept"])
    assert reloaded.calls == []  # from the record
    (tmp_path / f"{model_fingerprint()}.pickle").write_bytes(b"damaged")
    assert Recorder(tmp_path).vectors == {}  # a damaged record is an empty one


def test_the_fingerprint_follows_the_model_code(tmp_path: Path) -> None:
    (tmp_path / "codelens" / "models").mkdir(parents=True)
    (tmp_path / "codelens" / "models" / "e5.py").write_text("WEIGHTS = 1\n")
    before = model_fingerprint(tmp_path)
    (tmp_path / "codelens" / "models" / "e5.py").write_text("WEIGHTS = 2\n")
    assert model_fingerprint(tmp_path) != before
