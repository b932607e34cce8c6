"""The repository you are in comes first on a tie: the pure rule, the Searcher and serve that run
it, and the CLI that tells them which repository that is."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from codelens.locations import current_repository
from codelens.search.query import Fused, Query
from codelens.search.searcher import Searcher
from codelens.search.ties import prefer_repository
from codelens.workspace import discover
from tests.test_workspace import make_repo, workspace_index  # noqa: F401 (a fixture)


def repo_of(path: str) -> str:
    return path.split("/", 1)[0]


def test_only_hits_of_equal_score_change_places_and_the_preferred_repository_goes_first() -> None:
    fused = [Fused("a/x.py::f", 0.9), Fused("a/y.py::g", 0.5), Fused("b/y.py::g", 0.5 * (1 + 1e-12)),
             Fused("a/z.py::h", 0.5), Fused("b/z.py::h", 0.4), Fused("a/w.py::k", 0.4)]
    ids = [f.chunk_id for f in prefer_repository(fused, "b", repo_of)]
    assert ids == ["a/x.py::f", "b/y.py::g", "a/y.py::g", "a/z.py::h", "b/z.py::h", "a/w.py::k"]
    assert [f.chunk_id for f in prefer_repository(fused, "a", repo_of)] == [
        "a/x.py::f", "a/y.py::g", "a/z.py::h", "b/y.py::g", "a/w.py::k", "b/z.py::h"]
    assert prefer_repository(fused, "", repo_of) == fused
    apart = [Fused("a/y.py::g", 0.5), Fused("b/y.py::g", 0.5 * (1 - 1e-6))]  # close, but not equal
    assert prefer_repository(apart, "b", repo_of) == apart
    assert prefer_repository([], "b", repo_of) == []


class FlatSearcher(Searcher):
    """Every hit scores the same after ranking: the order is then the tie rule's alone (the
    Searcher's ranking seam, as bench/variants.py's VariantSearcher uses it)."""

    def ranking(self, context):
        def flatten(query: Query, fused: list[Fused]) -> list[Fused]:
            return [replace(item, score=1.0) for item in fused]

        return (*super().ranking(context), flatten)


def test_the_searcher_and_serve_rank_the_preferred_repository_first_on_a_tie(workspace_index) -> None:  # noqa: F811
    from codelens.serve.server import search_payload

    _, settings = workspace_index
    searcher = FlatSearcher(settings)
    plain = [hit.repo for hit in searcher.search("hash", k=10)]
    assert plain[0] == "beta" and "alpha" in plain
    preferred = [hit.repo for hit in searcher.search("hash", k=10, prefer_repo="alpha")]
    # every hit ties: alpha's first, also those the cut to k would have left out (the rule runs before it)
    assert preferred == sorted(preferred, key=lambda repo: repo != "alpha") and preferred.count("alpha") >= \
        plain.count("alpha") and preferred[0] == "alpha"
    served = search_payload(searcher, {"query": "hash", "k": 10, "prefer_repo": "alpha"})["hits"]
    assert [hit["repo"] for hit in served] == preferred
    assert [hit.repo for hit in searcher.search("hash", k=10, prefer_repo="gamma")] == plain  # not held: no effect
    unflat = Searcher(settings)
    assert [h.chunk_id for h in unflat.search("hash", k=10, prefer_repo="alpha")] == \
        [h.chunk_id for h in unflat.search("hash", k=10)]  # real scores: nothing ties, nothing moves


def test_the_cli_asks_for_the_repository_it_is_in(tmp_path: Path) -> None:
    from codelens.cli.search import search_request
    from codelens.settings import Settings

    work = tmp_path / "work"
    (make_repo(work / "shop") / "src").mkdir()
    make_repo(work / "billing")
    assert discover(work).names == ("billing", "shop")
    assert current_repository(work, cwd=work / "shop" / "src") == "shop"
    assert current_repository(work, cwd=work) == "" and current_repository(None, cwd=work / "shop") == ""
    team = tmp_path / "team.toml"
    team.write_text('[workspace]\n[[repository]]\nname = "store"\npath = "work/shop"\n'
                    '[[repository]]\nname = "front"\npath = "work/shop/src"\n')
    assert current_repository(team, cwd=work / "shop" / "src" / "deep") == "front"  # the deepest
    assert current_repository(team, cwd=work / "billing") == ""
    args = argparse.Namespace(query="q", k=5, kind=None, path="", include_tests=False, model=None, repo=None)
    assert search_request(args, Settings(project=None))["prefer_repo"] == ""
    assert search_request(args, Settings(project=work))["prefer_repo"] == current_repository(work)
