"""The sidecars every index holds, in build order: the one list the index run, the progressive
run (`in_partial`) and the incremental update (index/update.py) read. Each leg declares its own
entry next to its builder; add a leg's sidecar here."""

from __future__ import annotations

from pathlib import Path

from codelens.graph.store import GRAPH_SIDECAR
from codelens.index.layout import IndexLayout
from codelens.index.sidecar import Sidecar
from codelens.search.bridge import BRIDGE_SIDECAR
from codelens.search.english import ENGLISH_SIDECAR
from codelens.search.file_vectors import FILE_VECTORS_SIDECAR
from codelens.search.lexical import LEXICAL_SIDECAR

SIDECARS: tuple[Sidecar, ...] = (GRAPH_SIDECAR, LEXICAL_SIDECAR, BRIDGE_SIDECAR, ENGLISH_SIDECAR,
                                 FILE_VECTORS_SIDECAR)


def partial_sidecars() -> tuple[Sidecar, ...]:
    """What a progressive run's first swap builds (cheap: no embedding)."""
    return tuple(s for s in SIDECARS if s.in_partial)


def sidecar_names() -> list[str]:
    return [s.name for s in SIDECARS]


def sidecar_paths(folder: Path) -> tuple[Path, ...]:
    """Every sidecar file and folder of the index in `folder`."""
    layout = IndexLayout(folder)
    return tuple(path for sidecar in SIDECARS for path in sidecar.paths(layout))
