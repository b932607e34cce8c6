"""Indexing orchestration: source -> chunks -> vectors -> an index swapped into place.

Every run is incremental unless told otherwise: chunks whose fingerprint is unchanged
are left alone, removed ones are deleted, and only text never embedded before is
embedded (the cache is keyed by text hash and outlives killed runs). Changes are
applied to a copy of the index that is renamed over the old one only when complete,
so an interrupted or failed run never leaves a half-written index behind.

The run reads top to bottom below: a run record (plan.py) passes through named stages
(stages.py), and every decision is made once, by `plan`. The whole run has one progress
(progress.py: one bar, the caller's on_progress, the progress file `stats` reads), which each
stage tells where it is as it begins.
"""

from __future__ import annotations

from pathlib import Path

from codelens.index import stages
from codelens.index.embedding import ProgressCallback
from codelens.index.folder import check_target, writing
from codelens.index.metadata import IndexStats
from codelens.index.plan import chunking_key, expected_stages, plan, recorded_sidecars, start
from codelens.index.plan import scan as plan_scan
from codelens.index.progress import expect_stages, staged, tracking
from codelens.index.progress_stages import (
    BUILDING_SIDECARS,
    CHUNKING,
    EMBEDDING,
    PUBLISH,
    SCANNING,
    SEARCHABLE,
    STORING,
    TESTS,
)
from codelens.index.registry import SIDECARS
from codelens.index.sidecar import SidecarBuilder
from codelens.index.stages import finish, record_unchanged, store, tidy_server
from codelens.models import Embedder
from codelens.settings import Settings

__all__ = ["build_index", "chunking_key", "recorded_sidecars", "sidecar_builders"]

# The stages as build_index calls them, each telling the run's one progress first where it is
# (index/progress.py); inside them the embedding loops and the sidecars report their own counts.
scan = staged(SCANNING, plan_scan)
chunk = staged(CHUNKING, stages.chunk)
searchable_first = staged(SEARCHABLE, stages.searchable_first)
embed = staged(EMBEDDING, stages.embed)
build_aside = staged(STORING, stages.build_aside)  # the build folder is copied, then stored into
sidecars = staged(BUILDING_SIDECARS, stages.sidecars)
publish = staged(PUBLISH, stages.publish)
tests_follow = staged(TESTS, stages.tests_follow)


def build_index(
    source: Path, settings: Settings, embedder: Embedder | None = None,
    on_progress: ProgressCallback | None = None, full: bool = False, finish_tests: bool = True,
) -> IndexStats:
    """Index source into settings.index_dir: incrementally unless full, swapping on success.
    `finish_tests` False: return once the index is complete for searches, leaving the test
    chunks' vectors to whoever follows the folder (a watcher's catch-up: the background serve).
    `on_progress(done, total)`: the whole run's share, per mille (total 1000), each stage weighed
    by its estimated cost; where it is and the time left: progress.current_report(), in the call."""
    run = start(source, settings, embedder, None, full)
    check_target(run.layout)
    with tracking(run.layout, settings.show_progress, on_progress):
        with writing(run.layout):
            run = scan(run)  # the index it builds on; unchanged files are told without chunking
            if not run.plan.unchanged:
                expect_stages(expected_stages(run))  # guessed from the index it builds on
                run = plan(chunk(run))
                expect_stages(expected_stages(run))  # counted from the plan
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
