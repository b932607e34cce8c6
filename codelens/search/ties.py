"""Ties between repositories: the repository you are in comes first when the scores cannot tell.

In a folder inside one repository of a workspace, a search without flags covers the whole
workspace (cli/project.py) yet knows where you are. That knowledge is a tie-breaker only: it
never lifts a hit over one that scored higher, it orders hits whose fused scores are equal (two
copies of a helper vendored in two repositories score exactly alike). The Searcher runs it after
the ranking stages and before the cut to k, so a tie across the k-th place is broken too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codelens.search.query import Fused, Query

TIE_REL_TOL = 1e-9  # scores this close (relative) are equal: float sums in another order differ in the last bits


def prefer_repository(fused: Sequence[Fused], preferred: str, repo_of: Callable[[str], str],
                      rel_tol: float = TIE_REL_TOL) -> list[Fused]:
    """`fused` with each run of neighbours of equal score (within rel_tol of the run's first)
    re-ordered: the preferred repository's hits first, every other order kept (a stable sort)."""
    if not preferred:
        return list(fused)
    ordered: list[Fused] = []
    run: list[Fused] = []
    for item in fused:
        if run and not math.isclose(item.score, run[0].score, rel_tol=rel_tol):
            ordered.extend(_preferred_first(run, preferred, repo_of))
            run = []
        run.append(item)
    ordered.extend(_preferred_first(run, preferred, repo_of))
    return ordered


def _preferred_first(run: list[Fused], preferred: str, repo_of: Callable[[str], str]) -> list[Fused]:
    if len(run) < 2:
        return run
    return sorted(run, key=lambda item: repo_of(item.chunk_id.split("::", 1)[0]) != preferred)


@dataclass(frozen=True)
class PreferRepository:
    """`prefer_repository` as the Searcher's last stage (search/query.py `Stage`)."""

    preferred: str
    repo_of: Callable[[str], str]

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        return prefer_repository(fused, self.preferred, self.repo_of)
