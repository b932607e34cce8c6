"""An index run's one progress (codelens/index/progress.py, its pure core progress_stages.py): the
pure core with exact numbers (stage weights, the share done, the time left), the tracker on a fake
clock, and real runs on the mini project: the progress file while the run is under way and gone
after it, one bar instead of the legs' bars, and `stats`, MCP `index_status` and the page showing a run under way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from codelens.cli.main import main
from codelens.index import progress as progress_module
from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.progress import (
    STALE_S,
    RunProgress,
    RunReport,
    current_report,
    read_run_progress,
)
from codelens.index.progress_stages import (
    BOUND,
    BUILDING_SIDECARS,
    CATALOG_CHUNK_S,
    CHUNK_FILE_S,
    CHUNKING,
    COPY_CHUNK_S,
    E5_CHUNK_S,
    EMBEDDING,
    EXACT,
    GUESS,
    PUBLISH,
    PUBLISH_S,
    SCANNING,
    SEARCHABLE,
    STORE_CHUNK_S,
    STORING,
    TESTS,
    RunWork,
    Stage,
    WorkCost,
    clock_text,
    run_stages,
    seconds_left,
    share_done,
    with_embedding,
)
from codelens.mcp.tools import CodeLensTools, ServedIndex
from tests.conftest import copy_index, settings_for
from tests.test_progressive import StopAfter

# ------------------------------------------------------------ the pure core


def test_the_share_done_weighs_each_stage_by_its_estimated_seconds() -> None:
    stages = [Stage("chunking", unit="file", units=10, unit_s=1.0, done=10),  # 10 s, done
              Stage("embedding", unit="chunk", units=20, unit_s=2.0, done=5),  # 40 s, a quarter done
              Stage("publish", fixed_s=20.0)]  # 20 s
    assert [s.seconds for s in stages] == [10.0, 40.0, 20.0]
    assert share_done(stages, 0) == 10 / 70  # the cursor's own count: all of it
    assert share_done(stages, 1) == (10 + 10) / 70
    assert share_done(stages, 2) == 50 / 70  # a stage without a count counts once it is over
    assert share_done([*stages, Stage("later", unit="chunk", units=None)], 1) is None  # not counted yet
    assert share_done([Stage("nothing")], 0) is None


def test_the_time_left_scales_the_elapsed_time_by_the_work_left() -> None:
    assert seconds_left(30.0, 0.25) == 90.0
    assert seconds_left(10.0, 0.5) == 10.0
    assert seconds_left(10.0, 1.0) == 0.0
    assert seconds_left(5.0, 0.005) is None  # too early to say
    assert seconds_left(5.0, None) is None
    assert [clock_text(s) for s in (131, 59.6, 3725, None)] == ["02:11", "01:00", "1:02:05", "--:--"]


def test_an_embedding_loop_corrects_its_stage_count() -> None:
    guessed = Stage("sidecars", "English vectors", unit="chunk", units=300, unit_s=1.0, counted=GUESS)
    assert with_embedding(guessed, given=120, missing=45) == replace(guessed, units=45, counted=BOUND)
    bound = Stage("embedding e5", unit="chunk", units=100, unit_s=1.0, counted=BOUND)  # every text: an upper bound
    first = with_embedding(bound, given=70, missing=50)  # 20 code texts were cached
    assert first.units == 80
    second = with_embedding(replace(first, done=50), given=30, missing=25)  # 5 test texts cached
    assert second.units == 75
    assert with_embedding(replace(second, done=75), given=100, missing=0).units == 75  # all cached: stays done
    exact = Stage("storing", unit="chunk", units=9)
    assert with_embedding(exact, given=9, missing=9) is exact


@dataclass(frozen=True)
class FakeSidecar:
    name: str
    cost: WorkCost
    in_partial: bool = False
    after_partial: bool = False
    chunk_vectors: bool = False


GRAPH = FakeSidecar("graph", WorkCost("code graph", 0.5), in_partial=True)
BRIDGE = FakeSidecar("bridge", WorkCost("bridge words", 0.25, unit="word", per_chunk=2.0, new_only=True),
                     after_partial=True)
ENGLISH = FakeSidecar("english", WorkCost("English vectors", 1.0, new_only=True), chunk_vectors=True)
STATIC = FakeSidecar("static", WorkCost("static leg", 0.1))  # a partial index's own


def test_a_cold_progressive_run_with_deferred_tests_is_weighed_stage_by_stage() -> None:
    work = RunWork(files=8, chunks=40, to_store=30, deferred=10, progressive=True)
    stages = run_stages(work, (GRAPH, BRIDGE, ENGLISH), (STATIC,))
    assert [(s.label, s.units, s.seconds, s.counted) for s in stages] == [
        (SCANNING, 0, 0.0, EXACT),
        (CHUNKING, 8, 8 * CHUNK_FILE_S, EXACT),
        (SEARCHABLE, 40, 40 * CATALOG_CHUNK_S, EXACT),
        (f"{SEARCHABLE}: code graph", 40, 20.0, EXACT),
        (f"{SEARCHABLE}: publish", 0, PUBLISH_S, EXACT),
        (f"{SEARCHABLE}: static leg", 40, 4.0, EXACT),  # right after the first swap, before the others
        (f"{SEARCHABLE}: bridge words", 60, 15.0, GUESS),  # 2 words per new chunk
        (EMBEDDING, 30, 30 * E5_CHUNK_S, BOUND),
        (STORING, 30, 30 * STORE_CHUNK_S, EXACT),
        (f"{BUILDING_SIDECARS}: code graph", 0, 0.0, EXACT),  # copied from the partial index
        (f"{BUILDING_SIDECARS}: bridge words", 0, 0.0, GUESS),  # likewise
        (f"{BUILDING_SIDECARS}: English vectors", 30, 30.0, GUESS),
        (PUBLISH, 0, PUBLISH_S, EXACT),
        (f"{TESTS}: e5", 10, 10 * E5_CHUNK_S, BOUND),
        (f"{TESTS}: English vectors", 10, 10.0, GUESS),
        (f"{TESTS}: swap", 10, (40 * COPY_CHUNK_S + PUBLISH_S) + 10 * STORE_CHUNK_S, EXACT),
    ]


def test_an_incremental_repair_weighs_only_what_it_rebuilds() -> None:
    work = RunWork(files=8, chunks=40, to_store=0, held=40, rebuild=frozenset({"english"}))
    stages = {s.label: s for s in run_stages(work, (GRAPH, BRIDGE, ENGLISH))}
    assert SEARCHABLE not in stages and f"{TESTS}: e5" not in stages
    assert stages[STORING].seconds == 40 * COPY_CHUNK_S  # the copy of the index it builds on
    assert stages[f"{BUILDING_SIDECARS}: code graph"].units == 0
    assert stages[f"{BUILDING_SIDECARS}: English vectors"].units == 0  # no new text: a guess of nothing


def test_the_report_says_stage_count_share_and_time_left() -> None:
    report = RunReport(EMBEDDING, "", "chunk", 4210, 9811, 0.43, 131.0, 99.0, 1234, 0.0)
    assert report.bar_desc() == "Indexing [embedding e5 4,210/9,811]"
    assert report.bar_tail() == "43% 02:11 left"
    assert report.line() == "Index run under way: embedding e5 4,210/9,811 chunks, 43% done, 02:11 left (pid 1234)"
    assert report.per_mille == 430
    early = RunReport(CHUNKING, "", "file", 0, None, None, None, 0.4, 1234, 0.0)
    assert early.bar_desc() == "Indexing [chunking]" and early.bar_tail() == "?% --:-- left"
    assert early.line() == "Index run under way: chunking, the rest of the run not counted yet (pid 1234)"
    assert RunReport.from_json(json.loads(json.dumps(report.to_json()))) == report


# ------------------------------------------------------------ the tracker, on a fake clock


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def file_of(layout: IndexLayout) -> dict:
    return json.loads(layout.progress.read_text(encoding="utf-8"))


def test_the_tracker_reports_exact_shares_writes_its_file_at_most_once_a_second_and_removes_it(
        tmp_path: Path) -> None:
    layout, clock, calls = IndexLayout(tmp_path / "db"), FakeClock(), []
    progress = RunProgress(layout, on_progress=lambda done, total: calls.append((done, total)), clock=clock)
    progress.expect([Stage("a", unit="file", units=10, unit_s=1.0),
                     Stage("b", unit="chunk", units=20, unit_s=2.0, counted=BOUND), Stage("c", fixed_s=10.0)])
    assert not layout.progress.exists() and calls == []  # nothing before the first stage (a run waiting for the lock)
    progress.begin("a")
    assert file_of(layout)["phase"] == "a" and file_of(layout)["pid"] == os.getpid()
    clock.now = 0.5
    progress.count(5, 10)
    assert file_of(layout)["done"] == 0  # not rewritten within the second
    clock.now = 10.0
    progress.count(10, 10)
    report = progress.report()
    assert (report.share, report.seconds_left) == (round(10 / 60, 4), 50.0)
    assert file_of(layout)["done"] == 10 and calls[-1] == (167, 1000)

    progress.begin("b")
    advance = progress.embedding(given=20, missing=12)  # 8 cached: stage b is 12 chunks, 24 s
    clock.now = 16.0
    advance(6)
    report = progress.report()
    assert (report.phase, report.done, report.total, report.share, report.seconds_left) == ("b", 6, 12, 0.5, 16.0)

    progress.expect([Stage("a", unit="file", units=10, unit_s=1.0),
                     Stage("b", unit="chunk", units=12, unit_s=2.0, counted=BOUND), Stage("c", fixed_s=100.0)])
    clock.now = 17.0
    advance(6)  # the estimate grew: the share shown does not go back, the time left says it
    report = progress.report()
    assert (report.done, report.share, report.seconds_left) == (6, 0.5, round(17.0 * (1 - 22 / 134) / (22 / 134), 1))
    progress.begin("no such phase")  # ignored: the run goes on where it was
    assert progress.report().phase == "b"
    progress.close(finished=True)
    assert calls[-1] == (1000, 1000) and not layout.progress.exists()


def test_a_progress_file_counts_only_while_its_writer_lives_and_writes(tmp_path: Path) -> None:
    layout = IndexLayout(tmp_path / "db")
    progress = RunProgress(layout)
    progress.begin(EMBEDDING)
    assert read_run_progress(layout.root).phase == EMBEDDING
    written = file_of(layout)
    assert read_run_progress(layout.root, now=written["updated_at"] + STALE_S + 1) is None  # no word for too long
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    layout.progress.write_text(json.dumps({**written, "pid": int(gone.stdout)}), encoding="utf-8")
    assert read_run_progress(layout.root) is None  # a killed run's file stays behind: shown no more
    layout.progress.write_text("{half", encoding="utf-8")
    assert read_run_progress(layout.root) is None


# ------------------------------------------------------------ real index runs


def test_an_index_run_writes_its_progress_file_and_removes_it_at_the_end(
        tmp_path: Path, mini_project: Path, embedder, monkeypatch) -> None:
    monkeypatch.setattr(progress_module, "REFRESH_S", 0.0)  # every count reaches the callback (recorded: instant)
    db = tmp_path / "db"
    settings = replace(settings_for(db), batch_size=3, progressive_min_chunks=1)  # progressive, tests deferred
    seen: list[tuple[int, RunReport | None, RunReport | None]] = []
    build_index(mini_project, settings, embedder=embedder,
                on_progress=lambda done, total: seen.append((done, current_report(), read_run_progress(db))))
    phases = list(dict.fromkeys(report.phase for _, report, _ in seen))
    assert phases == [SCANNING, CHUNKING, SEARCHABLE, EMBEDDING, STORING, BUILDING_SIDECARS, PUBLISH, TESTS]
    shares = [done for done, _, _ in seen]
    assert shares == sorted(shares) and shares[-1] == 1000
    on_disk = [written for _, _, written in seen if written is not None]
    assert on_disk and {r.pid for r in on_disk} == {os.getpid()}
    assert {r.phase for r in on_disk} >= {CHUNKING, EMBEDDING, BUILDING_SIDECARS}
    counted = [r for _, r, _ in seen if r.phase == EMBEDDING and r.count]
    assert counted and counted[-1].done == counted[-1].total  # e5's chunks, counted as they are embedded
    assert all(r.seconds_left is not None for _, r, _ in seen if r.share and r.share > 0.05)
    assert not IndexLayout(db).progress.exists()


def test_one_bar_replaces_the_legs_bars_and_quiet_means_no_output(
        tmp_path: Path, mini_project: Path, embedder, capsys) -> None:
    settings = settings_for(tmp_path / "db")
    build_index(mini_project, replace(settings, show_progress=True), embedder=embedder)
    err = capsys.readouterr().err
    assert "Indexing [embedding e5" in err and "Indexing [sidecars: English vectors" in err and " left" in err
    for leg_bar in ("Chunking", "Dense vectors", "English vectors:", "Bridge words", "Embedding", "Storing"):
        assert leg_bar not in err
    build_index(mini_project, settings, embedder=embedder, full=True)
    assert capsys.readouterr() == ("", "")
    assert not IndexLayout(settings.index_dir).progress.exists()


def test_a_stopped_run_leaves_no_progress_file(tmp_path: Path, mini_project: Path, embedder) -> None:
    db = tmp_path / "db"
    settings = replace(settings_for(db), batch_size=3, progressive_min_chunks=1)
    with pytest.raises(KeyboardInterrupt):
        build_index(mini_project, settings, embedder=StopAfter(embedder, batches=1))
    assert 0 < json.loads((db / "index_metadata.json").read_text())["dense_coverage"] < 1
    assert not IndexLayout(db).progress.exists()


# ------------------------------------------------------------ what stats, MCP and the page show


def run_under_way(index_dir: Path) -> RunProgress:
    """A run's progress written as a live run writes it (this process's pid), 40 of 100 chunks embedded."""
    clock = FakeClock()
    progress = RunProgress(IndexLayout(index_dir), clock=clock)
    progress.expect(run_stages(RunWork(files=10, chunks=100, to_store=100), ()))
    progress.begin(CHUNKING)
    progress.count(10, 10)
    progress.begin(EMBEDDING)
    advance = progress.embedding(given=100, missing=100)
    clock.now = 60.0
    advance(40)  # a minute after the file's last write: written again
    return progress


def expected_line(progress: RunProgress) -> str:
    report = progress.report()
    return (f"Index run under way: embedding e5 40/100 chunks, {report.share:.0%} done, "
            f"{clock_text(report.seconds_left)} left (pid {os.getpid()})")


def test_stats_shows_a_run_under_way_and_nothing_once_it_ends(mini_index, tmp_path: Path, capsys) -> None:
    settings = copy_index(mini_index, tmp_path / "db")
    db = str(settings.index_dir)
    progress = run_under_way(settings.index_dir)
    report = progress.report()
    assert report.share == round((10 * CHUNK_FILE_S + 40 * E5_CHUNK_S) / (
        10 * CHUNK_FILE_S + 100 * (E5_CHUNK_S + STORE_CHUNK_S) + PUBLISH_S), 4)
    assert main(["stats", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(expected_line(progress)) and "Watch:" in out
    assert main(["stats", "--db", db, "--json"]) == 0
    running = json.loads(capsys.readouterr().out)["index_run"]
    assert (running["phase"], running["done"], running["total"], running["seconds_left"]) == (
        EMBEDDING, 40, 100, report.seconds_left)
    progress.close(finished=True)
    assert main(["stats", "--db", db]) == 0
    assert "Index run" not in capsys.readouterr().out
    assert main(["stats", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["index_run"] is None


def test_stats_before_a_first_run_s_first_swap_shows_the_run(tmp_path: Path, capsys) -> None:
    db = tmp_path / "db"
    assert main(["stats", "--db", str(db)]) != 0  # no index, no run: the usual error
    capsys.readouterr()
    progress = run_under_way(db)
    assert main(["stats", "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"No index in {db} yet.\n{expected_line(progress)}\n"
    progress.close(finished=False)


def test_mcp_index_status_shows_a_run_under_way(mini_index, tmp_path: Path) -> None:
    settings = copy_index(mini_index, tmp_path / "db")
    tools = CodeLensTools(ServedIndex(settings))
    quiet = tools.index_status(ask_enabled=False, reindex_allowed=False)
    assert quiet.data["index_run"] is None and "Index run" not in quiet.text
    progress = run_under_way(settings.index_dir)
    status = tools.index_status(ask_enabled=False, reindex_allowed=False)
    assert status.data["index_run"]["phase"] == EMBEDDING and status.data["index_run"]["done"] == 40
    assert expected_line(progress) in status.text.splitlines()
    progress.close(finished=True)


def test_the_index_tab_shows_a_run_under_way(mini_index, tmp_path: Path, monkeypatch) -> None:
    from codelens.app.ui import run_progress_caption
    from tests.test_app import open_app

    settings = copy_index(mini_index, tmp_path / "db")
    progress = run_under_way(settings.index_dir)
    caption = run_progress_caption(progress.report())
    assert caption == (f"Идёт индексация: векторы e5 (40/100) · готово {progress.report().share:.0%} · "
                       f"осталось ≈{clock_text(progress.report().seconds_left)}")
    app = open_app(monkeypatch, settings.db_path)
    assert caption in [bar.proto.text for bar in app.get("progress")]
    progress.close(finished=True)
    assert caption not in [bar.proto.text for bar in app.run().get("progress")]
