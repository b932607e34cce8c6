"""A workspace file: repositories anywhere on disk (folders and zips) indexed as one workspace,
kept fresh by updates, the freshness check and the watcher; and a folder workspace's new
repository found by the next update."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from codelens.errors import SourceError
from codelens.index.build import build_index
from codelens.index.fresh import stale_files
from codelens.index.metadata import read_stats
from codelens.index.update import update_index
from codelens.ingest.tree import live_tree
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.workspace_file import is_workspace_file, load_workspace_file
from tests.conftest import settings_for

INVOICES = ('def send_invoice(customer, amount):\n    """Email an invoice for the amount due to the customer."""\n'
            "    return f'{customer}: {amount}'\n")
SHIPPING = ('def shipping_cost(weight_kg, distance_km):\n    """The price of shipping a parcel by weight and '
            'distance."""\n    return weight_kg * distance_km * 0.07\n')


def billing_zip(tmp_path: Path) -> Path:
    """A zip of a billing repository (a src/ layout, generated code its .gitignore leaves out),
    with an entry that tries to escape the extraction folder."""
    target = tmp_path / "billing.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("billing/src/billing/__init__.py", "")
        archive.writestr("billing/src/billing/invoices.py", INVOICES)
        archive.writestr("billing/generated/stubs.py", "def generated_stub():\n    return 0\n")
        archive.writestr("billing/.gitignore", "generated/\n")
        archive.writestr("../escape.py", "def escaped():\n    return 1\n")
    return target


def write_workspace(path: Path, repositories: dict[str, str], header: str = "[workspace]\n") -> Path:
    body = "".join(f'\n[[repository]]\nname = "{name}"\npath = "{where}"\n' for name, where in repositories.items())
    path.write_text(header + body)
    return path


def names(settings) -> list[str]:
    return [r["name"] for r in read_stats(settings.index_dir).repositories]


@pytest.fixture
def team(tmp_path: Path, mini_project: Path) -> Path:
    """team.toml beside `alpha` (the mini project, a folder) and pointing at billing.zip elsewhere."""
    shutil.copytree(mini_project, tmp_path / "src" / "alpha")
    zipped = billing_zip(tmp_path / "src")
    return write_workspace(tmp_path / "team.toml", {"alpha": "src/alpha", "billing": str(zipped)})


def test_the_file_format_and_its_errors_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    spec = load_workspace_file(write_workspace(tmp_path / "ws.toml", {"one": "one"}, '[workspace]\nname = "t"\n'))
    assert spec.name == "t" and [(e.name, e.path) for e in spec.repositories] == [("one", tmp_path / "one")]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert is_workspace_file(tmp_path / "ws.toml") and not is_workspace_file(tmp_path / "pyproject.toml")
    cases = {
        '[workspace]\n[[repository]]\nname = "one"\npath = "one"\nbranch = "main"\n':
            "unknown key 'branch' in repository 1 - the keys are name, path",
        '[workspace]\nroot = "x"\n[[repository]]\nname = "one"\npath = "one"\n': r"unknown key 'root' in \[workspace\]",
        '[workspace]\n[[repository]]\nname = "one"\npath = "one"\n[[repository]]\nname = "one"\npath = "one"\n':
            "two repositories are named 'one' - give each its own name",
        '[workspace]\n[[repository]]\nname = "two"\npath = "nowhere"\n':
            r"nowhere does not exist - fix its path \(a relative path is relative to",
        '[workspace]\n[[repository]]\nname = "../up"\npath = "one"\n': "is not a single safe path component",
        '[workspace]\n[[repository]]\nname = "a/b"\npath = "one"\n': "is not a single safe path component",
        '[workspace]\n[[repository]]\npath = "one"\n': "needs name",
        '[workspace]\n': "lists no repository",
        '[workspace]\n[[repository]\n': "is not valid TOML",
    }
    for text, message in cases.items():
        (tmp_path / "bad.toml").write_text(text)
        with pytest.raises(SourceError, match=message):
            load_workspace_file(tmp_path / "bad.toml")
    with pytest.raises(SourceError, match=r"needs a top-level \[workspace\] table"):
        build_index(tmp_path / "pyproject.toml", settings_for(tmp_path / "db"))  # never taken for a workspace


def test_a_workspace_file_indexes_its_folders_and_zips_as_one_workspace(team: Path, tmp_path: Path, embedder) -> None:
    settings = settings_for(tmp_path / "db")
    stats = build_index(team, settings, embedder=embedder)
    assert [(r["name"], r["label"]) for r in stats.repositories] == [("alpha", "alpha"), ("billing", "billing")]
    assert stats.repositories[0]["path"] == str(tmp_path / "src" / "alpha")
    assert any("skipped zip entry '../escape.py'" in w for w in stats.warnings)  # extracted safely
    searcher = Searcher(settings, embedder=embedder)
    assert "alpha/pkg/auth.py::hash_password" in searcher.chunks  # the ids a folder workspace gives
    assert "billing/src/billing/invoices.py::send_invoice" in searcher.chunks
    assert not any("generated" in c or "escape" in c or "node_modules" in c for c in searcher.chunks)
    assert searcher.chunks["alpha/tests/test_auth.py::test_hash_password"].is_test  # its own test detection
    hits = searcher.search("email an invoice", k=3, filters=SearchFilters(repos=("billing",)))
    assert hits[0].chunk_id == "billing/src/billing/invoices.py::send_invoice" and hits[0].repo == "billing"


def test_adding_removing_and_editing_a_repository_embeds_only_its_text(team: Path, tmp_path: Path,
                                                                       embedder) -> None:
    settings = settings_for(tmp_path / "db")
    zipped = str(tmp_path / "src" / "billing.zip")
    write_workspace(team, {"alpha": "src/alpha"})
    alone = build_index(team, settings, embedder=embedder)
    assert alone.run["embedded"] == alone.total_chunks == 10
    write_workspace(team, {"alpha": "src/alpha", "billing": zipped})
    added = build_index(team, settings, embedder=embedder)
    assert added.run["upserted"] == added.run["embedded"] == 1 and added.run["unchanged"] == 10  # billing's one
    (tmp_path / "src" / "alpha" / "pkg" / "shipping.py").write_text(SHIPPING)
    edited = build_index(team, settings, embedder=embedder)
    assert edited.run["embedded"] == 1 and edited.run["unchanged"] == 11
    write_workspace(team, {"billing": zipped})
    removed = build_index(team, settings, embedder=embedder)
    assert removed.run["embedded"] == 0 and removed.run["deleted"] == 11 and removed.total_chunks == 1
    assert [r["name"] for r in read_stats(settings.index_dir).repositories] == ["billing"]


def test_updates_and_the_freshness_check_follow_every_folder_repository(team: Path, tmp_path: Path,
                                                                        embedder) -> None:
    """A change in a folder repository is found (stat, then hash) and updated; the zip's files
    are neither compared nor taken for deleted; a second folder added to the file is indexed by
    the next update, without an index run."""
    settings = settings_for(tmp_path / "db")
    build_index(team, settings, embedder=embedder)
    assert stale_files(settings.index_dir, team).changed == ()
    shipping = tmp_path / "src" / "alpha" / "pkg" / "shipping.py"
    shipping.write_text(SHIPPING)
    assert stale_files(settings.index_dir, team).changed == ("alpha/pkg/shipping.py",)
    result = update_index(team, settings, [str(shipping)], embedder=embedder)
    assert (result.mode, result.upserted, result.embedded) == ("update", 1, 1)
    assert update_index(team, settings, None, embedder=embedder).mode == "unchanged"  # the zip's files stay
    gamma = tmp_path / "elsewhere" / "gamma"
    gamma.mkdir(parents=True)
    (gamma / "rates.py").write_text(SHIPPING.replace("shipping_cost", "rate_of_parcel"))
    write_workspace(team, {"alpha": "src/alpha", "billing": str(tmp_path / "src" / "billing.zip"),
                           "gamma": str(gamma)})
    regrouped = update_index(team, settings, None, embedder=embedder)
    assert regrouped.mode == "update" and regrouped.upserted == 1
    assert [r["name"] for r in read_stats(settings.index_dir).repositories] == ["alpha", "billing", "gamma"]
    searcher = Searcher(settings, embedder=embedder)
    assert {"gamma/rates.py::rate_of_parcel", "billing/src/billing/invoices.py::send_invoice"} <= set(searcher.chunks)
    assert live_tree(team).watched_folders == (tmp_path / "src" / "alpha", gamma)


def folder_workspace(tmp_path: Path, mini_project: Path) -> Path:
    """A folder of two git repositories: the mini project (alpha) and an invoices one (beta)."""
    root = tmp_path / "work"
    shutil.copytree(mini_project, root / "alpha")
    (root / "beta").mkdir()
    for name in ("alpha", "beta"):
        (root / name / ".git").mkdir()
    (root / "beta" / "invoices.py").write_text(INVOICES)
    return root


def test_a_repository_added_to_a_folder_workspace_is_found_by_the_next_update(tmp_path: Path, mini_project: Path,
                                                                              embedder) -> None:
    root = folder_workspace(tmp_path, mini_project)
    settings = settings_for(tmp_path / "db")
    build_index(root, settings, embedder=embedder)
    (root / "gamma").mkdir()
    (root / "gamma" / "rates.py").write_text(SHIPPING)
    (root / "gamma" / ".git").mkdir()
    result = update_index(root, settings, None, embedder=embedder)
    assert result.mode == "update" and result.upserted == 1
    assert [r["name"] for r in read_stats(settings.index_dir).repositories] == ["alpha", "beta", "gamma"]
    hits = Searcher(settings, embedder=embedder).search("shipping price", k=1, filters=SearchFilters(repos=("gamma",)))
    assert hits[0].chunk_id == "gamma/rates.py::shipping_cost"
    shutil.rmtree(root / "gamma")
    assert update_index(root, settings, None, embedder=embedder).deleted == 1
    assert [r["name"] for r in read_stats(settings.index_dir).repositories] == ["alpha", "beta"]


def test_a_search_in_a_repository_of_an_indexed_workspace_file_searches_it_fresh(team: Path, tmp_path: Path,
                                                                                 monkeypatch, capsys) -> None:
    """`codelens index team.toml` (no --db: the user cache); then, in one of its folder
    repositories, a search without flags uses the workspace's index, checks every folder
    repository for changes first, and says which repository you are in."""
    from codelens.cli.main import main
    from codelens.locations import index_for, locate_index

    monkeypatch.chdir(tmp_path)
    assert main(["index", str(team), "--quiet"]) == 0
    alpha = tmp_path / "src" / "alpha"
    found = locate_index(None, cwd=alpha / "pkg")
    assert (found.project, found.index_dir) == (team.resolve(), index_for(team))
    (alpha / "pkg" / "shipping.py").write_text(SHIPPING)
    monkeypatch.chdir(alpha / "pkg")
    capsys.readouterr()
    assert main(["search", "shipping price of a parcel", "-k", "1"]) == 0
    out, err = capsys.readouterr()
    assert "alpha/pkg/shipping.py" in out and "shipping_cost" in out
    assert "1 file changed since the index - updating" in err and "you are in its repository alpha" in err


@contextmanager
def watching(source: Path, settings, embedder) -> Iterator[None]:
    """The source indexed, then a real watcher on it, up to date before the body runs; stopped after."""
    from codelens.index.watch import UP_TO_DATE, IndexWatcher
    from tests.test_watch import eventually

    build_index(source, settings, embedder=embedder)
    watcher = IndexWatcher(source, settings, embedder=embedder)
    watcher.start()
    try:
        eventually(lambda: watcher.status.state == UP_TO_DATE and watcher.status.last_update)
        yield
    finally:
        watcher.stop()


@pytest.mark.slow
def test_a_real_watcher_follows_every_folder_repository_and_the_file_itself(team: Path, tmp_path: Path,
                                                                            embedder) -> None:
    from tests.test_watch import eventually

    settings = settings_for(tmp_path / "db")
    with watching(team, settings, embedder):
        (tmp_path / "src" / "alpha" / "pkg" / "shipping.py").write_text(SHIPPING)
        eventually(lambda: "alpha/pkg/shipping.py::shipping_cost" in Searcher(settings, embedder=embedder).chunks)
        gamma = tmp_path / "elsewhere" / "gamma"
        gamma.mkdir(parents=True)
        (gamma / "rates.py").write_text(INVOICES.replace("send_invoice", "bill_customer"))
        write_workspace(team, {"alpha": "src/alpha", "billing": str(tmp_path / "src" / "billing.zip"),
                               "gamma": str(gamma)})
        eventually(lambda: "gamma/rates.py::bill_customer" in Searcher(settings, embedder=embedder).chunks)
        (gamma / "more.py").write_text(SHIPPING.replace("shipping_cost", "gamma_cost"))  # followed now too
        eventually(lambda: "gamma/more.py::gamma_cost" in Searcher(settings, embedder=embedder).chunks)


@pytest.mark.slow
def test_a_real_watcher_adds_a_repository_cloned_into_a_folder_workspace(tmp_path: Path, mini_project: Path,
                                                                         embedder) -> None:
    from tests.test_watch import eventually

    root = folder_workspace(tmp_path, mini_project)
    settings = settings_for(tmp_path / "db")
    with watching(root, settings, embedder):
        (root / "gamma" / ".git").mkdir(parents=True)
        (root / "gamma" / "rates.py").write_text(SHIPPING)
        eventually(lambda: names(settings) == ["alpha", "beta", "gamma"]
                   and "gamma/rates.py::shipping_cost" in Searcher(settings, embedder=embedder).chunks)
        shutil.rmtree(root / "gamma")
        eventually(lambda: names(settings) == ["alpha", "beta"])


def test_a_hits_file_state_is_checked_in_its_own_repository(team: Path, tmp_path: Path) -> None:
    from codelens.index.freshness import CHANGED, CURRENT, UNKNOWN, FileCheck, source_folder
    from codelens.index.manifest import file_hash

    auth = tmp_path / "src" / "alpha" / "pkg" / "auth.py"
    check = FileCheck(source_folder(str(team)))
    indexed = file_hash(auth.read_bytes())
    assert check.state("alpha/pkg/auth.py", indexed) == CURRENT
    assert check.state("billing/src/billing/invoices.py", "abc") == UNKNOWN  # in a zip: nothing to compare
    auth.write_text(auth.read_text() + "\n# edited\n")
    assert check.state("alpha/pkg/auth.py", indexed) == CHANGED
