"""The installed command in a repository: which index a command uses, the index built on first
use and never stale, the background server, `repos` and `forget`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from codelens.cli.main import main
from codelens.index.fresh import stale_files
from codelens.index.metadata import read_stats, write_stats
from codelens.locations import index_for, locate_index, project_root
from tests.conftest import PROJECT_ROOT, copy_index


def git_repository(folder: Path, source: Path) -> Path:
    shutil.copytree(source, folder)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(folder), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
                   check=True)
    return folder


def git_status(folder: Path) -> str:
    return subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--ignored"], capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture()
def repository(tmp_path, mini_project, mini_index) -> Path:
    """The mini project as a git repository, with its index where the CLI looks for it (a copy
    of the session's mini index, recorded as built from the repository)."""
    repo = git_repository(tmp_path / "repo", mini_project)
    settings = copy_index(mini_index, index_for(repo))
    write_stats(settings.index_dir, replace(read_stats(settings.index_dir), source=str(repo.resolve())))
    return repo


def search_json(capsys, *args: str) -> list[dict]:
    capsys.readouterr()
    assert main(["search", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_which_index_a_command_uses(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("CODELENS_DB", raising=False)
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / ".git").mkdir()
    inside = repo / "src" / "pkg"
    found = locate_index(None, cwd=inside)
    assert (found.how, found.project) == ("project", repo.resolve())
    assert found.index_dir == index_for(repo) == index_for(inside / ".." / "..")
    assert found.index_dir.is_relative_to(Path(os.environ["CODELENS_CACHE_DIR"]))
    assert locate_index("elsewhere", cwd=inside).index_dir == Path("elsewhere")
    monkeypatch.setenv("CODELENS_DB", str(tmp_path / "env_db"))
    assert locate_index(None, cwd=inside).index_dir == tmp_path / "env_db"
    assert locate_index("flag_db", cwd=inside).index_dir == Path("flag_db")  # the flag beats the environment
    monkeypatch.delenv("CODELENS_DB")
    (inside / "chroma_db").mkdir()  # a checkout's ./chroma_db counts once it holds an index
    assert locate_index(None, cwd=inside).how == "project"
    (inside / "chroma_db" / "index_metadata.json").write_text("{}")
    assert locate_index(None, cwd=inside).how == "checkout"


def test_the_project_is_the_repository_or_a_folder_already_indexed(tmp_path) -> None:
    plain = tmp_path / "plain" / "deeper"
    plain.mkdir(parents=True)
    assert project_root(plain) == plain.resolve()  # no repository around: the folder itself
    index = index_for(tmp_path / "plain")
    index.mkdir(parents=True)
    (index / "index_metadata.json").write_text("{}")
    assert project_root(plain) == (tmp_path / "plain").resolve()  # an indexed folder above it
    worktree = tmp_path / "worktree"
    (worktree / "a").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere\n")  # a git worktree's .git is a file
    assert project_root(worktree / "a") == worktree.resolve()
    link = tmp_path / "link"
    link.symlink_to(worktree, target_is_directory=True)
    assert index_for(link) == index_for(worktree)  # keyed by the real path


def test_the_freshness_check_stats_first_then_hashes(repository) -> None:
    index_dir = index_for(repository)
    first = stale_files(index_dir, repository)
    assert first.changed == () and first.hashed == first.checked > 0  # no record yet: every file read once
    again = stale_files(index_dir, repository)
    assert again.changed == () and again.hashed == 0  # unchanged: stat only
    auth = repository / "pkg" / "auth.py"
    os.utime(auth, ns=(time.time_ns(), time.time_ns() + 10**9))  # touched, same content
    touched = stale_files(index_dir, repository)
    assert touched.changed == () and touched.hashed == 1
    auth.write_text(auth.read_text() + "\n\ndef rotate_keys():\n    return 1\n")
    (repository / "pkg" / "storage.py").unlink()
    (repository / "pkg" / "new_module.py").write_text("def fresh():\n    return 2\n")
    assert set(stale_files(index_dir, repository).changed) == {"pkg/auth.py", "pkg/storage.py", "pkg/new_module.py"}


def test_a_search_in_a_repository_needs_no_flags_and_is_never_stale(repository, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CODELENS_AUTOSERVE", "0")
    monkeypatch.delenv("CODELENS_DB", raising=False)
    monkeypatch.chdir(repository / "pkg")
    hits = search_json(capsys, "hash a password")
    assert hits[0]["chunk_id"] == "pkg/auth.py::hash_password"
    (repository / "pkg" / "auth.py").write_text(
        (repository / "pkg" / "auth.py").read_text()
        + '\n\ndef revoke_refresh_token(token: str) -> None:\n    """Revoke a refresh token at logout."""\n')
    hits = search_json(capsys, "revoke the refresh token at logout")  # no watcher runs: the search updates first
    assert hits[0]["chunk_id"] == "pkg/auth.py::revoke_refresh_token"
    assert git_status(repository) == " M pkg/auth.py\n"  # nothing of the index in the repository


def test_repos_lists_and_forget_deletes(repository, monkeypatch, capsys) -> None:
    monkeypatch.chdir(repository)
    capsys.readouterr()
    assert main(["repos", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [entry["source"] for entry in listed] == [str(repository.resolve())]
    assert listed[0]["chunks"] > 0 and listed[0]["size_bytes"] > 0 and listed[0]["exists"]
    assert main(["forget"]) == 0
    assert not index_for(repository).exists()
    assert not list(index_for(repository).parent.glob(f".{index_for(repository).name}.*"))
    assert main(["repos", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1]) == []
    assert main(["forget", str(repository)]) == 6  # nothing left to forget: says so


def test_index_with_no_flags_indexes_the_repository_around(tmp_path, mini_project, monkeypatch, embedder) -> None:
    repo = git_repository(tmp_path / "repo", mini_project)
    monkeypatch.chdir(repo / "pkg")
    monkeypatch.delenv("CODELENS_DB", raising=False)
    assert main(["index", "--quiet"]) == 0
    stats = read_stats(index_for(repo))
    assert stats.source == str(repo.resolve()) and stats.total_chunks > 0
    assert git_status(repo) == ""


@pytest.mark.slow
def test_the_first_search_starts_a_background_server_that_answers_the_next(tmp_path, mini_project) -> None:
    """A real process tree: the first search builds in a background `serve`, the next ones go to it
    (and see an edit at once), `serve --stop` stops it, and an idle one exits by itself."""
    from codelens.serve.client import find_server
    from codelens.serve.lifetime import holder_pid

    repo = git_repository(tmp_path / "repo", mini_project)
    env = {**{k: v for k, v in os.environ.items() if k not in ("CODELENS_DB", "CODELENS_AUTOSERVE")},
           "PYTHONPATH": str(PROJECT_ROOT), "CODELENS_IDLE_EXIT_S": "600"}

    def search(*words: str) -> list[dict]:
        done = subprocess.run([sys.executable, "-m", "codelens", "search", *words, "--json"], cwd=repo / "pkg",
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    index_dir = index_for(repo)
    try:
        assert search("hash a password")[0]["chunk_id"] == "pkg/auth.py::hash_password"
        deadline = time.monotonic() + 240
        while find_server(index_dir) is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert find_server(index_dir) is not None, "the background server never announced itself"
        (repo / "pkg" / "auth.py").write_text((repo / "pkg" / "auth.py").read_text()
                                              + '\n\ndef revoke_refresh_token(token):\n    """Revoke a refresh '
                                                'token at logout."""\n')
        assert search("revoke the refresh token at logout")[0]["chunk_id"] == "pkg/auth.py::revoke_refresh_token"
        assert git_status(repo) == " M pkg/auth.py\n"
        stopped = subprocess.run([sys.executable, "-m", "codelens", "serve", "--stop"], cwd=repo, env=env,
                                 capture_output=True, text=True, timeout=60)
        assert "stopped the server" in stopped.stdout and holder_pid(index_dir) is None
        # an idle background server leaves by itself
        env["CODELENS_IDLE_EXIT_S"] = "2"
        search("hash a password")
        deadline = time.monotonic() + 120
        while find_server(index_dir) is None and time.monotonic() < deadline:
            time.sleep(0.5)
        deadline = time.monotonic() + 60
        while holder_pid(index_dir) is not None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert holder_pid(index_dir) is None, "the idle server did not exit"
    finally:
        subprocess.run([sys.executable, "-m", "codelens", "serve", "--stop"], cwd=repo, env=env,
                       capture_output=True, timeout=60)


def test_messages_name_the_command_that_builds_this_index(tmp_path, monkeypatch) -> None:
    from codelens.locations import IndexNotFound, index_command

    assert index_command(index_for(tmp_path)) == "codelens index (in the repository)"
    assert index_command(tmp_path / "db", "--full") == f"python index.py --db {tmp_path / 'db'} --full"
    monkeypatch.chdir(tmp_path)
    assert index_command(Path("chroma_db")) == "python index.py"
    assert "run: codelens index" in str(IndexNotFound(str(index_for(tmp_path))))


def test_inside_a_repository_of_an_indexed_workspace_the_workspace_is_searched(tmp_path, monkeypatch, capsys,
                                                                                 mini_project, embedder) -> None:
    from codelens.index.build import build_index
    from codelens.settings import Settings

    work = tmp_path / "work"
    git_repository(work / "alpha", mini_project)
    git_repository(work / "beta", mini_project / "pkg")
    assert project_root(work / "alpha" / "pkg") == (work / "alpha").resolve()  # no workspace index yet
    build_index(work, Settings(db_path=index_for(work), show_progress=False), embedder=embedder)
    assert project_root(work / "alpha" / "pkg") == work.resolve()
    monkeypatch.setenv("CODELENS_AUTOSERVE", "0")
    monkeypatch.chdir(work / "alpha" / "pkg")
    hits = search_json(capsys, "hash a password")
    assert {hit["repo"] for hit in hits} == {"alpha", "beta"}
    capsys.readouterr()
    assert main(["search", "hash a password"]) == 0
    assert "you are in its repository alpha" in capsys.readouterr().err
