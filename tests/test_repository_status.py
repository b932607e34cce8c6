"""Each repository's status: when the index last changed its files (`updated_at`, written by index
runs and the watcher's updates) and how many of its files differ from the disk now (the
stat-then-hash check of index/fresh.py split by repository), as `stats`, MCP `index_status` and
the app list them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codelens.index import stages, update
from codelens.index.build import build_index
from codelens.index.fresh import repository_status
from codelens.index.metadata import read_stats
from codelens.index.update import update_index
from tests.conftest import settings_for
from tests.test_workspace_file import billing_zip, write_workspace

LATER = "2099-01-01T00:00:00+00:00"
LATEST = "2100-01-01T00:00:00+00:00"


def make_repo(folder: Path, files: dict[str, str]) -> Path:
    (folder / ".git").mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


@pytest.fixture
def two_repos(tmp_path: Path, embedder):
    """A folder of two small repositories, indexed: `alpha` (auth) and `beta` (billing)."""
    root = tmp_path / "work"
    make_repo(root / "alpha", {
        "auth.py": 'def hash_password(password):\n    """Hash a password for storing."""\n    return password[::-1]\n',
        "tokens.py": 'def make_token(user):\n    """A session token for the user."""\n    return f"t-{user}"\n'})
    make_repo(root / "beta", {
        "billing/invoices.py": 'def send_invoice(customer, amount):\n    """Email an invoice."""\n'
                               "    return customer, amount\n"})
    settings = settings_for(tmp_path / "db")
    build_index(root, settings, embedder=embedder)
    return root, settings


def times(settings) -> dict[str, str]:
    return {r["name"]: r.get("updated_at") for r in read_stats(settings.index_dir).repositories}


def test_index_runs_and_updates_move_only_the_changed_repositories_time(two_repos, embedder, monkeypatch) -> None:
    root, settings = two_repos
    stats = read_stats(settings.index_dir)
    first = times(settings)
    assert first == {"alpha": stats.indexed_at, "beta": stats.indexed_at}  # first indexed: the run's time

    monkeypatch.setattr(stages, "now", lambda: LATER)
    assert build_index(root, settings, embedder=embedder).run["mode"] == "unchanged"
    assert times(settings) == first  # an unchanged run moves nothing
    build_index(root, settings, embedder=embedder, full=True)
    assert times(settings) == first  # nor does a rebuild of the same files

    (root / "beta" / "billing" / "invoices.py").write_text("def send_invoice(customer):\n    return customer\n")
    monkeypatch.setattr(update, "_now", lambda: LATER)
    assert update_index(root, settings, ["beta/billing/invoices.py"], embedder=embedder).mode == "update"
    assert times(settings) == {"alpha": first["alpha"], "beta": LATER}
    assert read_stats(settings.index_dir).indexed_at == LATER

    (root / "alpha" / "tokens.py").unlink()  # a deletion counts as a change of alpha's files
    make_repo(root / "gamma", {"ship.py": "def ship(parcel):\n    return parcel\n"})
    monkeypatch.setattr(stages, "now", lambda: LATEST)
    build_index(root, settings, embedder=embedder)
    assert times(settings) == {"alpha": LATEST, "beta": LATER, "gamma": LATEST}


def test_an_update_that_finds_a_new_repository_stamps_it_and_keeps_the_others(two_repos, embedder,
                                                                               monkeypatch) -> None:
    root, settings = two_repos
    first = times(settings)
    make_repo(root / "gamma", {"ship.py": "def ship(parcel):\n    return parcel\n"})
    monkeypatch.setattr(update, "_now", lambda: LATER)
    assert update_index(root, settings, None, embedder=embedder).mode == "update"
    assert times(settings) == {**first, "gamma": LATER}
    assert update_index(root, settings, None, embedder=embedder).mode == "unchanged"  # times are no regrouping


def test_freshness_per_repository_in_stats_mcp_and_the_status_rows(two_repos, capsys) -> None:
    from codelens.cli.main import main
    from codelens.mcp.tools import CodeLensTools, ServedIndex

    root, settings = two_repos
    rows = repository_status(settings.index_dir, read_stats(settings.index_dir))
    assert [(r["name"], r["files"], r["stale_files"]) for r in rows] == [("alpha", 2, 0), ("beta", 1, 0)]

    (root / "alpha" / "auth.py").write_text("def hash_password(password):\n    return password\n")  # not updated
    rows = {r["name"]: r for r in repository_status(settings.index_dir, read_stats(settings.index_dir))}
    assert (rows["alpha"]["stale_files"], rows["alpha"]["changed"]) == (1, 1) and rows["beta"]["stale_files"] == 0

    (root / "beta" / "billing" / "invoices.py").unlink()
    (root / "beta" / "billing" / "refunds.py").write_text("def refund(invoice):\n    return invoice\n")
    assert main(["stats", "--db", str(settings.index_dir), "--json"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)["repositories"]}
    assert {key: listed["beta"][key] for key in ("stale_files", "changed", "deleted", "new")} == {
        "stale_files": 2, "changed": 0, "deleted": 1, "new": 1}
    assert listed["alpha"]["label"] == "alpha" and listed["alpha"]["updated_at"] == times(settings)["alpha"]

    assert main(["stats", "--db", str(settings.index_dir)]) == 0
    out = capsys.readouterr().out
    assert f"  alpha: 2 files, 2 chunks, updated {times(settings)['alpha']}, 1 stale files (1 changed)" in out
    assert "  beta: 1 files, 1 chunks, updated" in out and "2 stale files (1 deleted, 1 new)" in out

    status = CodeLensTools(ServedIndex(settings)).index_status(ask_enabled=False, reindex_allowed=False)
    served = {r["name"]: r for r in status.data["repositories"]}
    assert (served["alpha"]["stale_files"], served["beta"]["stale_files"]) == (1, 2)
    assert served["alpha"]["updated_at"] == times(settings)["alpha"] and served["alpha"]["chunks"] == 2
    assert "alpha (2 files, 2 chunks, updated " in status.text and "1 stale files (1 changed)" in status.text


def test_a_single_repository_shows_its_one_repository(tmp_path: Path, embedder, capsys) -> None:
    from codelens.cli.main import main

    repo = make_repo(tmp_path / "shop", {"cart.py": "def total(items):\n    return sum(items)\n"})
    settings = settings_for(tmp_path / "db")
    stats = build_index(repo, settings, embedder=embedder)
    assert times(settings) == {"shop": stats.indexed_at}
    assert main(["stats", "--db", str(settings.index_dir)]) == 0
    assert f"Repositories: 1\n  shop: 1 files, 1 chunks, updated {stats.indexed_at}, up to date" in \
        capsys.readouterr().out


def test_a_zip_repository_is_not_checked(tmp_path: Path, mini_project: Path, embedder) -> None:
    import shutil

    shutil.copytree(mini_project, tmp_path / "src" / "alpha")
    team = write_workspace(tmp_path / "team.toml", {"alpha": "src/alpha", "billing": str(billing_zip(tmp_path))})
    settings = settings_for(tmp_path / "db")
    build_index(team, settings, embedder=embedder)
    rows = {r["name"]: r for r in repository_status(settings.index_dir, read_stats(settings.index_dir))}
    assert rows["alpha"]["stale_files"] == 0 and rows["billing"]["stale_files"] is None
    assert rows["billing"]["updated_at"] == rows["alpha"]["updated_at"]
