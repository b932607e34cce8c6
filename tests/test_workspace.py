"""Several repositories in one index: which repository a file is in, each repository's own
.gitignore, the `repo` of every hit and the `--repo` filter."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from codelens.errors import BadInput
from codelens.index.build import build_index
from codelens.index.metadata import read_stats
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.workspace import Repository, Workspace, discover
from tests.conftest import PROJECT_ROOT, settings_for


def make_repo(folder: Path) -> Path:
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture(scope="module")
def workspace_index(tmp_path_factory, mini_project, embedder):
    """A folder holding two repositories: the mini project (`alpha`) and a billing one (`beta`)
    whose own .gitignore leaves out its generated code."""
    root = tmp_path_factory.mktemp("workspace") / "work"
    shutil.copytree(mini_project, root / "alpha")
    make_repo(root / "alpha")
    beta = make_repo(root / "beta")
    (beta / "billing").mkdir()
    (beta / "billing" / "invoices.py").write_text(
        'def send_invoice(customer, amount):\n    """Email an invoice for the amount due to the customer."""\n'
        "    return f'{customer}: {amount}'\n\n\n"
        'def hash_invoice_number(number):\n    """A short hash of an invoice number for its URL."""\n'
        "    return str(hash(number))[:8]\n")
    (beta / "generated").mkdir()
    (beta / "generated" / "stubs.py").write_text("def generated_stub():\n    return 0\n")
    (beta / ".gitignore").write_text("generated/\n")
    settings = settings_for(tmp_path_factory.mktemp("workspace_db") / "db")
    build_index(root, settings, embedder=embedder)
    return root, settings


def test_a_folder_of_repositories_is_a_workspace(tmp_path: Path) -> None:
    make_repo(tmp_path / "one")
    assert discover(tmp_path).is_single  # one repository inside: paths as they are
    make_repo(tmp_path / "two")
    (tmp_path / "notes").mkdir()
    workspace = discover(tmp_path)
    assert workspace.names == ("one", "two")
    assert workspace.repo_of("two/src/app.py") == "two" and workspace.repo_of("README.md") == ""
    assert discover(tmp_path / "one").names == ("one",)  # a repository itself: a workspace of one
    single = Workspace((Repository("gymhero", ""),))
    assert single.repo_of("gymhero/security.py") == "gymhero"
    with pytest.raises(BadInput, match="its repositories: one, two"):
        workspace.check_names(["three"])


def test_chunk_ids_are_relative_to_the_workspace_and_each_repository_keeps_its_gitignore(workspace_index) -> None:
    _, settings = workspace_index
    stats = read_stats(settings.index_dir)
    assert [repo["name"] for repo in stats.repositories] == ["alpha", "beta"]
    searcher = Searcher(settings)
    assert "alpha/pkg/auth.py::hash_password" in searcher.chunks
    assert "beta/billing/invoices.py::send_invoice" in searcher.chunks
    assert not any(chunk_id.startswith("beta/generated/") for chunk_id in searcher.chunks)
    assert not any("node_modules" in chunk_id for chunk_id in searcher.chunks)


def test_every_hit_names_its_repository_and_repo_filters(workspace_index) -> None:
    _, settings = workspace_index
    searcher = Searcher(settings)
    hits = searcher.search("hash", k=10)
    assert {hit.repo for hit in hits} == {"alpha", "beta"}
    assert all(hit.to_dict()["repo"] == hit.chunk.path.split("/")[0] for hit in hits)
    only_beta = searcher.search("hash", k=10, filters=SearchFilters(repos=("beta",)))
    assert only_beta and {hit.repo for hit in only_beta} == {"beta"}
    assert only_beta[0].chunk_id == "beta/billing/invoices.py::hash_invoice_number"
    with pytest.raises(BadInput, match="no repository 'gamma'"):
        searcher.search("hash", filters=SearchFilters(repos=("gamma",)))


def test_stats_list_the_repositories(workspace_index, capsys) -> None:
    from codelens.cli.main import main

    _, settings = workspace_index
    assert main(["stats", "--db", str(settings.index_dir)]) == 0
    out = capsys.readouterr().out
    assert "Repositories: 2" in out and "  alpha: 4 files, 10 chunks" in out and "  beta: 1 files, 2 chunks" in out


def test_mcp_search_takes_repo_and_index_status_lists_the_repositories(workspace_index) -> None:
    from codelens.mcp.tools import CodeLensTools, ServedIndex

    _, settings = workspace_index
    tools = CodeLensTools(ServedIndex(settings))
    found = tools.search("hash", k=10, repos=("alpha",))
    assert found.data["hits"] and {hit["repo"] for hit in found.data["hits"]} == {"alpha"}
    status = tools.index_status(ask_enabled=False, reindex_allowed=False)
    assert [r["name"] for r in status.data["repositories"]] == ["alpha", "beta"]
    assert "repositories: alpha (4 files, 10 chunks, updated " in status.text and ", up to date)" in status.text
    assert [r["stale_files"] for r in status.data["repositories"]] == [0, 0]


def test_serve_takes_repos(workspace_index) -> None:
    from codelens.serve.server import search_payload

    _, settings = workspace_index
    hits = search_payload(Searcher(settings), {"query": "hash", "k": 10, "repos": ["beta"]})["hits"]
    assert hits and {hit["repo"] for hit in hits} == {"beta"}
    with pytest.raises(BadInput, match="'repos' must be a list"):
        search_payload(Searcher(settings), {"query": "hash", "repos": "beta"})


def test_the_graph_resolves_imports_in_their_own_repository_first_then_across(tmp_path: Path, embedder) -> None:
    """shop imports `utils` (its own and billing's exist: its own wins) and `billing` (a src/
    layout package of the other repository: resolved there, and marked as another repository)."""
    from codelens.graph.query import callees, callers
    from codelens.open_index import OpenIndex

    root = tmp_path / "work"
    shop, billing = make_repo(root / "shop"), make_repo(root / "billing")
    (shop / "utils.py").write_text("def money(amount):\n    return f'{amount:.2f}'\n")
    (shop / "checkout.py").write_text(
        "from billing.invoices import send_invoice\nfrom utils import money\n\n\n"
        "def checkout(customer, amount):\n    send_invoice(customer, money(amount))\n")
    (billing / "src" / "billing").mkdir(parents=True)
    (billing / "src" / "billing" / "__init__.py").write_text("")
    (billing / "src" / "billing" / "invoices.py").write_text(
        "from utils import money\n\n\ndef send_invoice(customer, amount):\n    return customer, money(amount)\n")
    (billing / "src" / "utils.py").write_text("def money(amount):\n    return str(amount)\n")
    settings = settings_for(tmp_path / "db")
    build_index(root, settings, embedder=embedder)
    graph = OpenIndex(settings).graph
    called = {n.node.node_id: n for n in callees(graph, "shop/checkout.py::checkout")}
    assert set(called) == {"billing/src/billing/invoices.py::send_invoice", "shop/utils.py::money"}
    assert called["billing/src/billing/invoices.py::send_invoice"].other_repo == "billing"
    assert called["shop/utils.py::money"].other_repo == ""
    inbound = callers(graph, "billing/src/billing/invoices.py::send_invoice")
    assert [(n.node.node_id, n.other_repo) for n in inbound] == [("shop/checkout.py::checkout", "shop")]
    own = {n.node.node_id for n in callees(graph, "billing/src/billing/invoices.py::send_invoice")}
    assert own == {"billing/src/utils.py::money"}


def test_map_works_per_repository(workspace_index, capsys) -> None:
    from codelens.cli.main import main
    from codelens.mcp.tools import CodeLensTools, ServedIndex

    _, settings = workspace_index
    assert main(["map", "--db", str(settings.index_dir), "--repo", "beta"]) == 0
    beta_map = capsys.readouterr().out
    assert "send_invoice" in beta_map and "hash_password" not in beta_map
    assert main(["map", "--db", str(settings.index_dir)]) == 0
    whole = capsys.readouterr().out
    assert "send_invoice" in whole and "hash_password" in whole
    assert main(["map", "--db", str(settings.index_dir), "--repo", "gamma"]) == 6
    alpha = CodeLensTools(ServedIndex(settings)).code_map(2000, repo="alpha")
    assert "hash_password" in alpha.text and "send_invoice" not in alpha.text


def test_the_repository_vote_fills_the_list_from_the_repository_the_evidence_points_to() -> None:
    from codelens.search.query import Fused, Query
    sys.path.insert(0, str(PROJECT_ROOT / "bench"))
    from variants import RepositoryVote

    from tests.conftest import make_chunk

    ids = ["web/app.py::route", "web/app.py::Request", "client/models.py::Request", "web/ctx.py::g"]
    chunks = {chunk_id: make_chunk(chunk_id, "def f():\n    pass\n") for chunk_id in ids}
    workspace = Workspace((Repository("web", "web"), Repository("client", "client")))
    fused = [Fused(ids[0], 1.0), Fused(ids[2], 0.9), Fused(ids[1], 0.8), Fused(ids[3], 0.7)]
    query = Query.from_text("how is g used to store request data", np.zeros(4, dtype=np.float32))
    voted = RepositoryVote(chunks, workspace.repo_of)(query, fused)
    assert [f.chunk_id for f in voted] == [ids[0], ids[1], ids[3], ids[2]]  # the other repository's hit goes down
    assert len(voted) == len(fused)  # never drops a candidate
    assert RepositoryVote(chunks, None)(query, fused) == fused  # one repository: untouched


def test_the_app_shows_each_cards_repository_and_a_facet_that_filters(workspace_index, monkeypatch) -> None:
    from tests.test_app import cards, open_app, search

    _, settings = workspace_index
    app = search(open_app(monkeypatch, settings.index_dir), "hash")
    assert any(":material/folder: alpha]" in m.value for m in app.markdown)
    shown = [path.split("/")[0] for _, path, *_ in cards(app)]
    facet = {b.label: b for b in app.button if b.key and b.key.startswith("facet-")}
    assert set(facet) == {f"{repo} · {shown.count(repo)}" for repo in set(shown)} and "beta" in shown
    facet[f"beta · {shown.count('beta')}"].click().run()
    assert app.multiselect(key="repos").value == ["beta"]
    assert cards(app) and all(path.startswith("beta/") for _, path, *_ in cards(app))
    listed = next(frame.value for frame in app.dataframe if "Репозиторий" in frame.value.columns)
    updated = [r["updated_at"] for r in read_stats(settings.index_dir).repositories]
    assert listed.values.tolist() == [["alpha", 4, 10, updated[0], "актуален"], ["beta", 1, 2, updated[1], "актуален"]]


def test_a_question_that_names_a_repository_or_its_package_searches_it_only(workspace_index) -> None:
    _, settings = workspace_index
    searcher = Searcher(settings)
    assert {hit.repo for hit in searcher.search("hash", k=10)} == {"alpha", "beta"}
    assert {hit.repo for hit in searcher.search("hash in Beta", k=10)} == {"beta"}
    assert {hit.repo for hit in searcher.search("how does billing hash things", k=10)} == {"beta"}  # its package
    assert {hit.repo for hit in searcher.search("hash in alpha or beta", k=10)} == {"alpha", "beta"}
    # a search that chose its repositories keeps them; "pkg" (alpha's package) is too generic to count
    assert {hit.repo for hit in searcher.search("hash in beta", k=10, filters=SearchFilters(repos=("alpha",)))} == {
        "alpha"}
    assert {hit.repo for hit in searcher.search("hash in pkg", k=10)} == {"alpha", "beta"}


def test_repository_names_in_a_question() -> None:
    from codelens.workspace import named_repositories, repository_packages

    workspace = Workspace((Repository("fastapi", "fastapi"), Repository("httpx_full", "httpx_full"),
                           Repository("shop-site", "shop-site")))
    packages = repository_packages(workspace, ["fastapi/fastapi/routing.py", "httpx_full/httpx/_client.py",
                                               "httpx_full/tests/test_client.py", "shop-site/src/shop/cart.py",
                                               "README.md"])
    assert packages == {"fastapi": {"fastapi"}, "httpx_full": {"httpx", "tests"}, "shop-site": {"shop"}}
    assert named_repositories("how does FastAPI run sync routes", packages) == ("fastapi",)
    assert named_repositories("как в httpx устроены куки?", packages) == ("httpx_full",)
    assert named_repositories("shop.cart totals in shop-site", packages) == ("shop-site",)
    assert named_repositories("fastapi-users login, tests of the client", packages) == ()


def test_each_repository_in_scope_deepens_the_legs_lists(workspace_index, mini_index) -> None:
    """A workspace's legs hand fusion OVERFETCH_MIN candidates per repository in scope (up to a
    cap): one repository's chunks reach fusion about as deep as in its own index."""
    from codelens.search.pipeline import MAX_OVERFETCH_REPOSITORIES, OVERFETCH_MIN, overfetch_for

    _, settings = workspace_index
    searcher = Searcher(settings)
    assert searcher.overfetch(SearchFilters()) == 2 * OVERFETCH_MIN
    assert searcher.overfetch(SearchFilters(repos=("beta",))) == OVERFETCH_MIN
    assert Searcher(mini_index).overfetch(SearchFilters()) == OVERFETCH_MIN
    assert overfetch_for(50) == MAX_OVERFETCH_REPOSITORIES * OVERFETCH_MIN and overfetch_for(0) == OVERFETCH_MIN
