"""Filters are exact in every leg: on an index of hundreds of chunks, a narrow filter (one small
folder, one kind) still returns k hits when k chunks pass it, with the best chunk inside it.

The index is a part of the standard library (json and email, ~720 chunks): a question about
email with `path_prefix="json/"` has nothing of json among the nearest chunks overall, which is
where a leg that fetches a few times k and filters afterwards comes back empty.
"""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from codelens.errors import EXIT_BAD_INPUT
from codelens.index.build import build_index
from codelens.search.filters import SearchFilters, UnknownPathPrefix, check_path_prefix
from codelens.search.searcher import Searcher
from tests.conftest import settings_for

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = ("json", "email")
QUESTION = "parse the MIME headers of an email message"


@pytest.fixture(scope="module")
def stdlib_searcher(tmp_path_factory, embedder) -> Searcher:
    if not all((STDLIB / name).is_dir() for name in PACKAGES):
        pytest.skip(f"the standard library's {PACKAGES} are not at {STDLIB}")
    source = tmp_path_factory.mktemp("stdlib") / "src"
    for name in PACKAGES:
        shutil.copytree(STDLIB / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    settings = settings_for(source.parent / "chroma_db")
    build_index(source, settings, embedder=embedder)
    return Searcher(settings, embedder=embedder)


def best_inside(searcher: Searcher, filters: SearchFilters) -> str:
    """The chunk under the filter whose e5 vector is nearest the question (exact, by hand)."""
    ids, vectors = searcher.store.all_vectors()
    cosines = vectors @ searcher.embedder.embed_queries([QUESTION])[0]
    inside = [i for i, chunk_id in enumerate(ids) if filters.accepts(searcher.chunks[chunk_id])]
    return ids[max(inside, key=lambda i: cosines[i])]


@pytest.mark.slow
@pytest.mark.parametrize("filters", [
    SearchFilters(path_prefix="json/"),
    SearchFilters(path_prefix="json/", include_tests=True),
    SearchFilters(path_prefix="json/", kinds=("function",)),
    SearchFilters(kinds=("class",), path_prefix="email/_"),
])
def test_a_narrow_filter_still_returns_k_hits_and_the_best_chunk_inside_it(stdlib_searcher: Searcher,
                                                                           filters: SearchFilters) -> None:
    searcher, k = stdlib_searcher, 5
    passing = [c for c in searcher.chunks.values() if filters.accepts(c)]
    assert len(passing) >= k  # the filter leaves enough to fill the list
    hits = searcher.search(QUESTION, k=k, filters=filters)
    assert len(hits) == k
    assert all(filters.accepts(h.chunk) for h in hits)
    assert best_inside(searcher, filters) in [h.chunk_id for h in hits]


@pytest.mark.slow
def test_every_leg_fills_its_list_under_the_filter(stdlib_searcher: Searcher) -> None:
    """Each leg hands fusion its n best inside the filter, not what is left of its n best overall."""
    searcher, n = stdlib_searcher, 20
    filters = SearchFilters(path_prefix="json/")
    query = searcher.prepare(QUESTION)
    pipeline = searcher._pipeline(filters)
    inside = sum(1 for c in searcher.chunks.values() if filters.accepts(c))
    for leg in pipeline.retrievers:
        candidates = leg.retrieve(query, n).candidates
        assert candidates and all(filters.accepts(searcher.chunks[c.chunk_id]) for c in candidates), leg.name
        if leg.name == "dense":
            assert len(candidates) == min(n, inside)
    dense = pipeline.retrievers[0].primary.retrieve(query, n)
    assert [c.score for c in dense.candidates] == sorted((c.score for c in dense.candidates), reverse=True)
    assert dense.candidates[0].chunk_id == best_inside(searcher, filters)
    assert np.isfinite([c.score for c in dense.candidates]).all()


@pytest.mark.slow
def test_a_prefix_that_matches_nothing_names_the_prefixes_that_exist(stdlib_searcher: Searcher) -> None:
    with pytest.raises(UnknownPathPrefix, match=r"no indexed path starts with 'src/json/' - "
                                                r"indexed paths start with: email/, json/ \(did you mean 'json/'\?\)"):
        stdlib_searcher.search(QUESTION, k=5, filters=SearchFilters(path_prefix="src/json/"))


def test_unknown_prefix_lists_what_lies_under_its_deepest_folder() -> None:
    paths = ["flask/app.py", "flask/json/provider.py", "flask/json/tag.py", "tests/test_app.py", "setup.py"]
    check_path_prefix("flask/js", paths)  # a prefix of a file name is a prefix
    check_path_prefix("./flask/", paths)
    check_path_prefix("", paths)
    with pytest.raises(UnknownPathPrefix) as caught:
        check_path_prefix("src/flask/", paths)
    assert str(caught.value) == ("no indexed path starts with 'src/flask/' - indexed paths start with: "
                                 "flask/, tests/, setup.py (did you mean 'flask/'?)")
    assert caught.value.exit_code == EXIT_BAD_INPUT
    with pytest.raises(UnknownPathPrefix, match=r"indexed paths under 'flask/json/' are: provider\.py, tag\.py$"):
        check_path_prefix("flask/json/x", paths)
    with pytest.raises(UnknownPathPrefix, match=r"under 'flask/' are: json/, app\.py$"):
        check_path_prefix("flask/views/", paths)
