"""Embedding on Ray (issue 15 part 3): a real local Ray instance with 2 CPUs, the real e5 model.

Ray's start-up takes 10-20 s on a busy 2-core machine, so the instance is shared by the module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pytest
import ray

from codelens.cli.main import main
from codelens.index.distributed import (
    ClusterUnavailable,
    RayEmbeddingPool,
    WorkerSlot,
    connect,
    plan_workers,
    ray_init_address,
    ray_pool,
    worker_runtime_env,
)
from codelens.index.embed_cache import EmbeddingCache, embed_with_cache, text_hash
from codelens.index.metadata import read_stats
from codelens.index.store import forget_open_indexes, open_client
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.embed_text import embedding_text
from codelens.settings import COLLECTION_NAME, DEFAULT_MODEL


def _node(node_id: str, cpus: float, gpus: float = 0, alive: bool = True) -> dict:
    resources = {"CPU": cpus, "memory": 1e9}
    if gpus:
        resources["GPU"] = gpus
    return {"NodeID": node_id, "Alive": alive, "Resources": resources}


def test_plan_one_worker_per_node_by_default_and_skip_dead_or_cpuless_nodes():
    nodes = [_node("a", 16), _node("b", 4), _node("dead", 8, alive=False), _node("gpu-only", 0, gpus=1)]
    assert plan_workers(nodes) == [WorkerSlot("a", 16), WorkerSlot("b", 4)]


def test_plan_splits_nodes_by_worker_cpus_and_gives_gpus_only_to_st_models():
    nodes = [_node("a", 5, gpus=1), _node("b", 1)]
    assert plan_workers(nodes, worker_cpus=2) == [WorkerSlot("a", 2), WorkerSlot("a", 2), WorkerSlot("b", 1)]
    assert plan_workers(nodes, worker_cpus=2, use_gpus=True) == [
        WorkerSlot("a", 2, gpus=1), WorkerSlot("a", 2), WorkerSlot("b", 1)]


def test_auto_starts_a_local_cluster_when_none_runs_and_addresses_pass_through(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert ray_init_address("auto") == "local"  # no Ray runs here (the Ray tests below start theirs)
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert ray_init_address("auto") is None  # ray.init reads RAY_ADDRESS itself
    assert ray_init_address(" 10.0.0.5:6379 ") == "10.0.0.5:6379"
    assert ray_init_address("ray://head:10001") == "ray://head:10001"


def test_missing_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets where it is not installed
    with pytest.raises(ClusterUnavailable, match=r"pip install -r requirements-ray\.txt"):
        connect("auto")


def test_a_run_sent_to_ray_embeds_everything_there_without_a_local_first_index(mini_project, tmp_path):
    """The progressive run's first index embeds on this machine: --ray turns it off."""
    from dataclasses import replace

    from codelens.index.plan import plan, scan, start
    from codelens.index.stages import chunk
    from tests.conftest import settings_for

    settings = replace(settings_for(tmp_path / "db"), progressive=True, progressive_min_chunks=1)
    planned = [plan(chunk(scan(start(mini_project, replace(settings, ray_address=address), None, None, False))))
               for address in ("", "auto")]
    assert [run.plan.progressive for run in planned] == [True, False]


@pytest.mark.slow
def test_index_cli_on_ray_auto_stores_the_vectors_of_a_local_index(mini_project, mini_index, tmp_path, capsys):
    """`--ray auto` with no cluster around starts a local one (this machine's CPUs), and stops it."""
    db = tmp_path / "chroma_db"
    code = main(["index", "--source", str(mini_project), "--db", str(db), "--ray", "auto",
                 "--ray-worker-cpus", "1", "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert not ray.is_initialized()
    stats = read_stats(db)
    assert stats.run["embedded"] == stats.total_chunks == read_stats(mini_index.index_dir).total_chunks
    on_ray, local = _stored_vectors(db), _stored_vectors(mini_index.index_dir)
    assert on_ray.keys() == local.keys()
    for chunk_id, vector in on_ray.items():
        np.testing.assert_array_equal(vector, local[chunk_id], err_msg=chunk_id)
    # Every round was committed to the cache as it arrived: a local rebuild embeds nothing.
    assert main(["index", "--source", str(mini_project), "--db", str(db), "--full", "--quiet"]) == 0
    assert read_stats(db).run["embedded"] == 0


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance with 2 CPUs, as CI has."""
    ray.init(address="local", num_cpus=2, runtime_env=worker_runtime_env(), include_dashboard=False,
             log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def mini_texts(mini_project) -> list[str]:
    chunks = chunk_codebase(mini_project, 1_000_000).chunks
    return [embedding_text(c, 700) for c in chunks]


@pytest.mark.slow
def test_two_ray_workers_return_the_local_vectors_in_order(local_ray, embedder, mini_texts):
    assert connect("auto") is False  # the fixture's instance is reused, never shut down by us
    pool = RayEmbeddingPool(DEFAULT_MODEL, embedder.dim, batch_size=3, worker_cpus=1)
    try:
        assert len(pool.slots) == 2 and pool.round_size == 3 * 2 * 2
        # Unsorted texts in small batches: several rounds per actor, finishing out of order.
        texts = [*mini_texts, mini_texts[0]]
        on_ray = pool.embed(texts)
        assert pool.embed([]).shape == (0, embedder.dim)
    finally:
        pool.close()
    # A local run embeds the same batches (embed_with_cache cuts rounds and batches alike):
    # onnxruntime gives a batch the same bits on every machine (runtime.TOKENS_PER_PASS).
    local = local_batches(embedder, texts, 3)
    assert on_ray.dtype == np.float32 and on_ray.shape == local.shape
    np.testing.assert_array_equal(on_ray, local)


def local_batches(embedder, texts: list[str], batch_size: int) -> np.ndarray:
    return np.concatenate([embedder.embed_passages(texts[i : i + batch_size])
                           for i in range(0, len(texts), batch_size)])


def _stored_vectors(db) -> dict[str, np.ndarray]:
    forget_open_indexes()
    collection = open_client(db).get_collection(COLLECTION_NAME)
    got = collection.get(include=["embeddings"])
    vectors = {chunk_id: np.asarray(vector, dtype=np.float32)
               for chunk_id, vector in zip(got["ids"], got["embeddings"], strict=True)}
    forget_open_indexes()
    return vectors


@pytest.mark.slow
def test_a_dead_worker_stops_the_run_with_a_message_and_finished_rounds_stay_cached(
        local_ray, embedder, mini_texts, tmp_path):
    texts = list(dict.fromkeys(mini_texts))
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite", DEFAULT_MODEL)
    rounds: list[list[str]] = []
    with ray_pool("auto", DEFAULT_MODEL, embedder.dim, batch_size=2, worker_cpus=1) as pool:

        def encode(batch: list[str]):
            rounds.append(batch)
            if len(rounds) == 2:  # the cluster loses its workers after the first round
                for actor in pool._actors:
                    ray.kill(actor)
            return pool.embed(batch)

        round_size = pool.round_size
        with pytest.raises(ClusterUnavailable, match="run the same command again"):
            embed_with_cache(texts, encode, embedder.dim, cache, round_size)
    try:
        assert len(rounds[0]) == round_size == 8 < len(texts)
        kept = cache.get_many([text_hash(t) for t in texts])
        assert set(kept) == {text_hash(t) for t in rounds[0]}
        np.testing.assert_array_equal(np.stack([kept[text_hash(t)] for t in rounds[0]]),
                                      local_batches(embedder, rounds[0], 2))
    finally:
        cache.close()
