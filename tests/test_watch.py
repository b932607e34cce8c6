"""Watch mode for real: a watchfiles watcher on a temporary folder (edit, add, delete, rename),
`index.py --watch` killed with -9 in the middle of an update, `stats` showing the watcher, and
the MCP server (SDK client) following edits and marking stale files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.watch import (
    UP_TO_DATE,
    IndexWatcher,
    paths_to_update,
    read_watch_status,
    watch_filter,
    watcher_for,
)
from codelens.search.searcher import Searcher
from tests.conftest import PROJECT_ROOT, copy_index, run_cli, zip_folder
from tests.test_incremental import leftovers
from tests.test_mcp import serving, text

WAIT_S = 240  # a loaded 2-core machine: generous, the tests assert behaviour, never timings

SHIPPING = '''"""Shipping rates."""


def shipping_cost(weight_kg: float, distance_km: float) -> float:
    """The price of shipping a parcel: weight times distance times the courier's rate."""
    return weight_kg * distance_km * 0.07
'''


def eventually(condition: Callable[[], object], timeout: float = WAIT_S, interval: float = 0.2) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("the watcher did not catch up in time")


def top_hit(settings, embedder, query: str):
    hits = Searcher(settings, embedder=embedder).search(query, k=1)
    return hits[0] if hits else None


def test_the_filter_keeps_what_an_index_run_reads(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("generated/\n")
    keep = watch_filter(tmp_path)
    assert keep(None, str(tmp_path / "pkg" / "a.py"))
    assert keep(None, str(tmp_path / ".gitignore"))
    assert keep(None, str(tmp_path / "notes.txt"))  # documents and configuration are read too
    (tmp_path / "chroma_db").mkdir()
    (tmp_path / "chroma_db" / "index_metadata.json").write_text("{}")
    for ignored in (".git/index", ".venv/lib/x.py", "generated/x.py", "logo.png", "pkg/__pycache__/a.py",
                    "chroma_db/manifest.json"):  # an index inside the source is never the source
        assert not keep(None, str(tmp_path / ignored)), ignored
    assert paths_to_update(["/p/a.py", "/p/b.py"]) == ["/p/a.py", "/p/b.py"]
    assert paths_to_update(["/p/a.py", "/p/.gitignore"]) is None  # the rules changed: every file


@pytest.mark.slow
def test_a_real_watcher_follows_edit_add_rename_and_delete(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    watcher = IndexWatcher(project, settings, embedder=embedder)
    watcher.start()
    try:
        eventually(lambda: watcher.status.state == UP_TO_DATE)
        auth = project / "pkg" / "auth.py"
        auth.write_text(auth.read_text().replace("sha256(password", "sha512(password"))
        eventually(lambda: "sha512" in top_hit(settings, embedder, "hash a password").chunk.code)

        (project / "pkg" / "shipping.py").write_text(SHIPPING)
        eventually(lambda: top_hit(settings, embedder, "shipping price of a parcel").chunk_id
                   == "pkg/shipping.py::shipping_cost")

        (project / "pkg" / "shipping.py").rename(project / "pkg" / "rates.py")
        eventually(lambda: top_hit(settings, embedder, "shipping price of a parcel").chunk_id
                   == "pkg/rates.py::shipping_cost")

        (project / "pkg" / "storage.py").unlink()
        eventually(lambda: not any(c.startswith("pkg/storage.py")
                                   for c in Searcher(settings, embedder=embedder).chunks))
        eventually(lambda: watcher.status.state == UP_TO_DATE)
        status = read_watch_status(settings.index_dir)
        assert status is not None and status.state == UP_TO_DATE and status.last_update and not status.last_error
    finally:
        watcher.stop()
    assert read_watch_status(settings.index_dir) is None  # a stopped watcher is no watcher


def test_stop_ends_every_thread_of_the_watcher_and_waits_for_an_update_under_way(indexed_copy, embedder) -> None:
    """Watching, catching up and the code graph each run on a thread: after stop() none is
    alive (an update under way is finished first, within the bound; a stopped watcher starts
    no more work), so nothing of it writes after its owner moved on."""
    project, settings = indexed_copy
    gate = threading.Event()
    watcher = IndexWatcher(project, settings, embedder=embedder, on_update=lambda _result: gate.wait(WAIT_S))
    watcher.start()  # the catch-up's update waits at the gate: all three threads are alive
    try:
        threads = eventually(lambda: watcher.threads if len(watcher.threads) == 3 else None)
        assert sorted(thread.name for thread in threads) == ["codelens-catch-up", "codelens-graph", "codelens-watch"]
        started = time.monotonic()
        assert not watcher.stop(timeout=0.3)  # bounded: the update is still at the gate
        assert time.monotonic() - started < 5.0
        assert "codelens-catch-up" in [thread.name for thread in watcher.threads]
    finally:
        gate.set()
    assert watcher.stop(timeout=WAIT_S)
    assert not any(thread.is_alive() for thread in threads) and watcher.threads == []
    assert read_watch_status(settings.index_dir) is None  # "stopped" came last: no status after it


def _many_functions(count: int) -> str:
    return "\n\n".join(f'def step_{i}(rows):\n    """Filter batch {i} of the nightly import by customer {i}."""\n'
                       f"    return [r for r in rows if r.get('customer') == {i}]" for i in range(count)) + "\n"


def _status(db: Path) -> dict:
    try:
        return json.loads(IndexLayout(db).status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@pytest.mark.slow
def test_kill_9_during_an_update_leaves_a_searchable_index(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    db = settings.db_path
    env = {**{k: v for k, v in os.environ.items() if k != "CODELENS_DB"}, "PYTHONPATH": str(PROJECT_ROOT)}
    process = subprocess.Popen([sys.executable, "index.py", "--source", str(project), "--db", str(db), "--quiet",
                                "--watch"], cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        eventually(lambda: _status(db).get("state") == UP_TO_DATE)
        stats = run_cli("-m", "codelens", "stats", "--db", str(db))
        assert stats.returncode == 0 and "Watch: up to date" in stats.stdout
        (project / "pkg" / "batch.py").write_text(_many_functions(150))  # enough to embed for a while
        eventually(lambda: _status(db).get("state") == "updating", interval=0.02)
        time.sleep(0.5)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    hit = top_hit(settings, embedder, "hash a password")  # the index before the update, whole
    assert hit is not None and hit.chunk_id == "pkg/auth.py::hash_password"
    stats = run_cli("-m", "codelens", "stats", "--db", str(db))
    assert "Watch: not watched" in stats.stdout  # the dead watcher's status is not believed
    result = run_cli("index.py", "--source", str(project), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stderr
    assert not leftovers(db)
    assert "pkg/batch.py::step_7" in Searcher(settings, embedder=embedder).chunks


@pytest.mark.slow
def test_mcp_follows_edits_and_marks_stale_files(indexed_copy, tmp_path: Path) -> None:
    project, settings = indexed_copy
    with serving(["--db", str(settings.db_path), "--no-watch"], tmp_path / "unwatched.log") as client:
        auth = project / "pkg" / "auth.py"
        auth.write_text(auth.read_text() + "\n\ndef logout(session):\n    session.clear()\n")
        chunk = client.call("get_chunk", chunk_id="pkg/auth.py::hash_password")
        assert chunk.structured_content["file_state"] == "changed" and "changed on disk" in text(chunk)
        found = client.call("search", query="hash a password", k=1)
        assert found.structured_content["hits"][0]["file_state"] == "changed"
        (project / "pkg" / "storage.py").unlink()
        gone = client.call("get_chunk", chunk_id="pkg/storage.py::Repository.save")
        assert gone.structured_content["file_state"] == "deleted" and "was deleted" in text(gone)
        assert "watch: off" in text(client.call("index_status"))

    with serving(["--db", str(settings.db_path)], tmp_path / "watched.log") as client:
        def caught_up() -> bool:  # the watcher catches up with the edits made while nobody watched
            hits = client.call("search", query="clear the session on logout", k=3).structured_content["hits"]
            return any(h["chunk_id"] == "pkg/auth.py::logout" and h["file_state"] == "current" for h in hits)

        eventually(caught_up)
        (project / "pkg" / "shipping.py").write_text(SHIPPING)
        eventually(lambda: client.call("search", query="shipping price of a parcel", k=1)
                   .structured_content["hits"][0]["chunk_id"] == "pkg/shipping.py::shipping_cost")
        eventually(lambda: "watch: up to date" in text(client.call("index_status")))
        ids = client.call("search", query="save records", k=20).structured_content["hits"]
        assert all(not h["chunk_id"].startswith("pkg/storage.py") for h in ids)


@pytest.mark.slow
def test_the_app_watches_marks_stale_cards_and_has_a_switch(indexed_copy, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP, cards, search, until_warm

    project, settings = indexed_copy
    monkeypatch.setenv("CODELENS_DB", str(settings.db_path))
    monkeypatch.delenv("CODELENS_MODEL", raising=False)
    app = until_warm(AppTest.from_file(APP, default_timeout=120).run())
    app.toggle(key="watch").set_value(False).run()  # off: an edit leaves the card stale, and says so
    auth = project / "pkg" / "auth.py"
    auth.write_text(auth.read_text() + "\n\ndef logout(session):\n    session.clear()\n")
    search(app, "hash a password")
    assert any("файл изменён" in m.value for m in app.markdown)

    app.toggle(key="watch").set_value(True).run()  # on again: the watcher catches up

    def caught_up() -> bool:
        search(app, "clear the session on logout")
        return any(symbol == "logout" for _, _, _, _, symbol in cards(app))

    eventually(caught_up, interval=1.0)
    assert not any("файл изменён" in m.value for m in app.markdown)
    assert any(c.value.startswith(("Слежение: индекс актуален", "Слежение: обновляю")) for c in app.sidebar.caption)
    app.toggle(key="watch").set_value(False).run()


def test_an_unchanged_run_from_another_folder_records_and_watches_that_folder(tmp_path, mini_index, mini_project,
                                                                             embedder) -> None:
    """Two folders with the same files: indexing the second into the first's index changes no
    chunk, but the record (and so the watcher) follows the folder this run was asked for."""
    settings = copy_index(mini_index, tmp_path / "db")
    assert Path(read_stats(settings.index_dir).source) == mini_project
    other = tmp_path / "other"
    shutil.copytree(mini_project, other)
    stats = build_index(other, settings, embedder=embedder)
    assert stats.run["mode"] == "unchanged"
    assert read_stats(settings.index_dir).source == str(other)
    watcher, line = watcher_for(settings)
    assert watcher is not None and watcher.source == other.resolve() and line == f"watching {other.resolve()}"
    # A folder given explicitly is watched whatever the index records.
    third = tmp_path / "third"
    shutil.copytree(mini_project, third)
    watcher, line = watcher_for(settings, source=third)
    assert watcher is not None and watcher.source == third.resolve() and line == f"watching {third.resolve()}"


def test_a_relative_source_is_recorded_absolute(tmp_path, mini_index, mini_project, embedder, monkeypatch) -> None:
    """`--source src` from one folder: the record names the folder itself, so the watcher, the
    app and `codelens repos` started from anywhere else find it (a zip alike)."""
    settings = copy_index(mini_index, tmp_path / "db")
    shutil.copytree(mini_project, tmp_path / "work" / "project")
    zip_folder(mini_project, tmp_path / "work" / "project.zip")
    monkeypatch.chdir(tmp_path / "work")
    build_index(Path("project"), settings, embedder=embedder)
    assert read_stats(settings.index_dir).source == str((tmp_path / "work" / "project").resolve())
    monkeypatch.chdir(tmp_path)  # elsewhere: the recorded folder is still the one watched
    watcher, line = watcher_for(settings)
    assert watcher is not None and watcher.source == (tmp_path / "work" / "project").resolve(), line
    monkeypatch.chdir(tmp_path / "work")
    build_index(Path("project.zip"), settings, embedder=embedder)
    recorded = Path(read_stats(settings.index_dir).source)
    assert recorded.is_absolute() and recorded == (tmp_path / "work" / "project.zip").resolve()
    monkeypatch.chdir(tmp_path)
    assert watcher_for(settings) == (None, f"not watching {recorded}: a zip never changes")


@pytest.mark.slow  # an index.py process
def test_index_py_watch_follows_the_source_it_is_given(tmp_path, mini_index, mini_project) -> None:
    """`index.py --source B --watch` on an index of folder A with the same files watches B."""
    db = copy_index(mini_index, tmp_path / "db").db_path
    other = tmp_path / "other"
    shutil.copytree(mini_project, other)
    env = {**{k: v for k, v in os.environ.items() if k != "CODELENS_DB"}, "PYTHONPATH": str(PROJECT_ROOT)}
    process = subprocess.Popen([sys.executable, "index.py", "--source", str(other), "--db", str(db), "--quiet",
                                "--watch"], cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    lines = []
    try:
        for line in process.stdout:  # the summary, then the watcher's line
            lines.append(line)
            if "Ctrl-C stops" in line:
                break
    finally:
        process.kill()
        process.wait(timeout=30)
    assert f"watching {other.resolve()} - Ctrl-C stops\n" in lines, "".join(lines) + process.stderr.read()
    assert Path(read_stats(db).source) == other
