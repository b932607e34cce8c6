"""Indexing orchestration: source -> chunks -> vectors -> an index swapped into place.

Every run is incremental unless told otherwise: chunks whose fingerprint is unchanged
are left alone, removed ones are deleted, and only text never embedded before is
embedded (the cache is keyed by text hash and outlives killed runs). Changes are
applied to a copy of the index that is renamed over the old one only when complete,
so an interrupted or failed run never leaves a half-written index behind.

The run reads top to bottom below: a run record (plan.py) passes through named stages
(stages.py), and every decision is made once, by `plan`.
"""

from __future__ import annotations

from pathlib import Path

from codelens.index.embedding import ProgressCallback
from codelens.index.folder import check_target, writing
from codelens.index.metadata import IndexStats
from codelens.index.plan import chunking_key, plan, recorded_sidecars, scan, start
from codelens.index.registry import SIDECARS
from codelens.index.sidecar import SidecarBuilder
from codelens.index.stages import (
    build_aside,
    chunk,
    embed,
    finish,
    publish,
    record_unchanged,
    searchable_first,
    sidecars,
    store,
    tests_follow,
    tidy_server,
)
from codelens.models import Embedder
from codelens.settings import Settings

__all__ = ["build_index", "chunking_key", "recorded_sidecars", "sidecar_builders"]


def build_index(
    source: Path, settings: Settings, embedder: Embedder | None = None,
    on_progress: ProgressCallback | None = None, full: bool = False, finish_tests: bool = True,
) -> IndexStats:
    """Index source into settings.index_dir: incrementally unless full, swapping on success.
    `finish_tests` False: return once the index is complete for searches, leaving the test
    chunks' vectors to whoever follows the folder (a watcher's catch-up: the background serve)."""
    run = start(source, settings, embedder, on_progress, full)
    check_target(run.layout)
    with writing(run.layout):
        run = scan(run)  # the index it builds on; unchanged files are told without chunking
        if not run.plan.unchanged:
            run = plan(chunk(run))
        if run.plan.unchanged:
            return record_unchanged(run)
        if run.plan.progressive:
            run = searchable_first(run)
        run = embed(run)
        with build_aside(run) as built:
            run = publish(sidecars(store(built)))
        run = finish(run)
    run = tidy_server(run)
    return tests_follow(run) if finish_tests else run.stats


def sidecar_builders() -> list[SidecarBuilder]:
    """Structures built beside the vectors on every run, in order (codelens/search/sidecars.py)."""
    return [sidecar.build for sidecar in SIDECARS]
