"""Which files are a codebase's hubs: the files a mechanism runs through.

A file's hub score is the geometric mean of how many other code files use it (call, import,
inherit from or decorate with what it defines) and how many other code files it uses: a router,
a session, a mapper core both. A utility that everything calls (a lock wrapper, a logger) uses
little and scores low, and so does an entry point or a leaf plugin that nothing uses. Tests count
on neither side. Scores are scaled 0-1 by log(1 + score) over the largest's, so a file used and
using a handful of others already counts and the few hubs of a big repository are not alone.

The search's `hub-files` stage (search/ranking_files.py) reads them: a "how does X work" question
is answered in the hub of that mechanism more often than in one of its users.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from codelens.graph.model import CodeGraph

_USES = ("calls", "inherits", "imports", "decorates")


def file_hubs(graph: CodeGraph) -> dict[str, float]:
    """Each file with a score above 0: its hub score, 0-1 (see the module's docstring)."""
    used_by: dict[str, set[str]] = {}
    uses: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.kind not in _USES:
            continue
        source, target = graph.nodes.get(edge.source), graph.nodes.get(edge.target)
        if source is None or target is None or not source.path or not target.path or source.path == target.path:
            continue
        if not source.is_test:
            used_by.setdefault(target.path, set()).add(source.path)
        if not target.is_test:
            uses.setdefault(source.path, set()).add(target.path)
    raw = {path: math.sqrt(len(users) * len(uses.get(path, ()))) for path, users in used_by.items()}
    return _scaled({path: score for path, score in raw.items() if score > 0})


def _scaled(raw: Mapping[str, float]) -> dict[str, float]:
    """log(1 + score) over the largest's."""
    top = math.log1p(max(raw.values(), default=0.0))
    return {path: math.log1p(score) / top for path, score in raw.items()} if top > 0 else {}
