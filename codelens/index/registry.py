"""The sidecars every index holds, in build order: the one list the index run, the progressive
run (`in_partial`, `after_partial`), the incremental update (index/update.py), the test vectors
and the health checks read.

Each leg declares its own entry next to its builder, and the legs sit above index/: the list is
composed there (codelens/search/sidecars.py) and registered here when that module is imported,
which the CLI, the searcher and the benchmarks' _common do; index/ itself never imports a leg.
Add a leg's sidecar to that module's list."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from codelens.index.layout import IndexLayout
from codelens.index.sidecar import Sidecar


class SidecarRegistry:
    """The registered sidecars, iterated in build order. Empty until registered: iterating it
    then is an error that names the module to import, never an index without its sidecars."""

    def __init__(self) -> None:
        self._sidecars: tuple[Sidecar, ...] = ()
        self.partial_only: tuple[Sidecar, ...] = ()

    def register(self, sidecars: Sequence[Sidecar], partial_only: Sequence[Sidecar] = ()) -> None:
        """Use these sidecars (the whole list, in build order; registering again replaces it), and
        `partial_only` in a progressive run's partial index alone (not iterated: no complete index,
        update or health check knows them, and the manifest does not record them)."""
        self._sidecars = tuple(sidecars)
        self.partial_only = tuple(partial_only)

    def __iter__(self) -> Iterator[Sidecar]:
        if not self._sidecars:
            raise RuntimeError("no index sidecars registered - import codelens.search.sidecars first "
                               "(it lists every leg's sidecar)")
        return iter(self._sidecars)


SIDECARS = SidecarRegistry()


def partial_sidecars() -> tuple[Sidecar, ...]:
    """What a progressive run's first swap builds (cheap: keywords within seconds)."""
    return tuple(s for s in SIDECARS if s.in_partial)


def late_partial_sidecars() -> tuple[Sidecar, ...]:
    """What a progressive run adds to its live partial index right after the first swap, one swap
    each, in this order: the partial index's own legs (the static leg: meaning within seconds),
    then the others."""
    return (*SIDECARS.partial_only, *(s for s in SIDECARS if s.after_partial))


def chunk_vector_sidecars() -> tuple[Sidecar, ...]:
    """The sidecars of per-chunk vectors: rebuilt when the test chunks' vectors come in."""
    return tuple(s for s in SIDECARS if s.chunk_vectors)


def sidecar_names() -> list[str]:
    return [s.name for s in SIDECARS]


def sidecar_paths(folder: Path) -> tuple[Path, ...]:
    """Every sidecar file and folder of the index in `folder`."""
    layout = IndexLayout(folder)
    return tuple(path for sidecar in SIDECARS for path in sidecar.paths(layout))
