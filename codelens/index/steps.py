"""The steps every writer of an index folder takes, written once: build aside, build the sidecars,
publish (metadata written, folder swapped in). Before them each writer embeds its new text the one
way there is (embedding.embed_through_cache).

The index run (stages.py, whose progressive first swap runs its own build_aside and publish
stages), the incremental update (update.py, what the watcher runs) and the test vectors that
follow a swap (test_vectors.py) differ in their plan, never in these steps.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from codelens.index.collector import collector_paused
from codelens.index.folder import fresh_build_dir, swap_into_place
from codelens.index.layout import IndexLayout
from codelens.index.metadata import IndexStats, write_stats
from codelens.index.progress import step_begins
from codelens.index.sidecar import Sidecar, SidecarInput


@contextmanager
def building(layout: IndexLayout, copy_from: IndexLayout | None = None,
             link: frozenset[str] = frozenset()) -> Iterator[Path]:
    """A build folder beside the index (a copy of it, or empty), removed if anything fails before
    the swap: an interrupted or failed writer never leaves a half-written index behind."""
    build_dir = fresh_build_dir(layout, copy_from=copy_from, link=link)
    try:
        yield build_dir
    except BaseException:
        shutil.rmtree(build_dir, ignore_errors=True)
        raise


def build_sidecars(sidecars: Iterable[Sidecar], sidecar_input: SidecarInput, timings: dict | None = None,
                   digits: int = 2) -> None:
    """Build each sidecar into the input's build folder, timing each as `sidecar:NAME` (and, in an
    index run, telling its progress which one it is on)."""
    for sidecar in sidecars:
        step_begins(sidecar.name)
        mark = time.perf_counter()
        with collector_paused():  # a graph or a word index: millions of objects kept to the end (collector.py)
            sidecar.build(sidecar_input)
        if timings is not None:
            timings[f"sidecar:{sidecar.name}"] = round(time.perf_counter() - mark, digits)


def publish(build_dir: Path, stats: IndexStats, layout: IndexLayout) -> None:
    """The build's metadata written, and the build swapped in where the index is."""
    write_stats(build_dir, stats)
    swap_into_place(build_dir, layout)
