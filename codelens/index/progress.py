"""One progress for a whole index run: one bar with the stage and the time left, and a small file
beside the index that `stats`, MCP `index_status` and the app read while the run is under way.

What each stage weighs, the share done and the time left are the pure core in progress_stages.py.
`RunProgress` around it is the edge: it draws the bar, calls the caller's `on_progress(done, total)`
(the whole run, per mille) and writes the progress file (`IndexLayout.progress`) at most once a second.

The stages tell the tracker of the run under way in this thread where they are (`stage_begins`,
`step_begins`, `stage_count`, `embedding_begins`), through a context variable build_index sets:
the loops that do the work (embed_cache.embed_with_cache, steps.build_sidecars) report without a
parameter threaded through every stage and sidecar builder, and outside an index run (an update,
the watcher's test vectors) they report nothing.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields, replace
from functools import wraps
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import (
    EXACT,
    RunWork,
    Stage,
    clock_text,
    run_stages,
    seconds_left,
    share_done,
    with_embedding,
)

REFRESH_S = 0.1  # the bar and the caller's callback at most this often (a new stage: at once)
WRITE_S = 1.0  # the progress file at most this often (a new stage: at once)
STALE_S = 120.0  # a file not rewritten for this long is a run that stopped or hangs: shown no more
PER_MILLE = 1000

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class RunReport:
    """Where a run is: what the bar draws, the progress file holds and its readers show."""

    phase: str
    step: str
    unit: str
    done: int  # of the stage's units
    total: int | None  # the stage's units
    share: float | None  # of the whole run; None while its work is not counted yet
    seconds_left: float | None
    elapsed_s: float
    pid: int
    updated_at: float  # time.time() when it was made

    @property
    def label(self) -> str:
        return f"{self.phase}: {self.step}" if self.step else self.phase

    @property
    def count(self) -> str:
        """4,210/9,811 once the stage has counted something."""
        return f"{self.done:,}/{self.total:,}" if self.done and self.total else ""

    @property
    def per_mille(self) -> int:
        return round((self.share or 0.0) * PER_MILLE)

    def bar_desc(self) -> str:
        return f"Indexing [{self.label}{' ' + self.count if self.count else ''}]"

    def bar_tail(self) -> str:
        share = f"{self.share:.0%}" if self.share is not None else "?%"
        return f"{share} {clock_text(self.seconds_left)} left"

    def line(self) -> str:
        """One line for `stats` and MCP `index_status`."""
        count = f" {self.count} {self.unit}s" if self.count else ""
        done = (f"{self.share:.0%} done, {clock_text(self.seconds_left)} left" if self.share is not None
                else "the rest of the run not counted yet")
        return f"Index run under way: {self.label}{count}, {done} (pid {self.pid})"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: dict) -> RunReport:
        return cls(**{f.name: raw[f.name] for f in fields(cls)})


# ---------------------------------------------------------------- the tracker of one run


class RunProgress:
    """One run's progress: its stages, the one under way, and what it shows (the module's docstring)."""

    def __init__(self, layout: IndexLayout | None, show_bar: bool = False,
                 on_progress: Callable[[int, int], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self.layout, self.show_bar, self.on_progress = layout, show_bar, on_progress
        self._clock, self._wall = clock, wall
        self.stages: list[Stage] = run_stages(RunWork(), ())
        self.cursor = 0
        self._started: float | None = None  # the first stage's start: waiting for the lock is not the run
        self._shown = 0.0  # the share never goes back on screen when an estimate grows
        self._refreshed = self._written = -math.inf
        self._bar: tqdm | None = None

    def expect(self, stages: Sequence[Stage]) -> None:
        """The run's stages as now counted (plan.expected_stages); the stage under way keeps its count."""
        current = self.stages[self.cursor]
        self.stages = list(stages)
        found = next((i for i, s in enumerate(self.stages) if (s.phase, s.key) == (current.phase, current.key)), None)
        self.cursor = found if found is not None else 0
        if found is not None:
            self.stages[found] = replace(self.stages[found], done=current.done)
        self._emit(force=True)

    def begin(self, phase: str) -> None:
        """`phase` begins; one under way goes on, one this run does not have is ignored."""
        if self._started is None:
            self._started = self._clock()
        found = next((i for i in range(self.cursor, len(self.stages)) if self.stages[i].phase == phase), None)
        if found is not None:
            self.cursor = found
        self._emit(force=True)

    def step(self, key: str) -> None:
        """The step `key` of the phase under way begins (a sidecar's build); one it lacks is ignored."""
        phase = self.stages[self.cursor].phase
        for i in range(self.cursor, len(self.stages)):
            if self.stages[i].phase != phase:
                return
            if self.stages[i].key == key:
                self.cursor = i
                self._emit(force=True)
                return

    def count(self, done: int, total: int) -> None:
        """The stage under way's own count (files chunked, chunks stored)."""
        self.stages[self.cursor] = replace(self.stages[self.cursor], done=done, units=total)
        self._emit()

    def embedding(self, given: int, missing: int) -> Callable[[int], None]:
        """A loop about to embed `missing` of `given` texts in the stage under way; it reports each
        batch through what this returns (the texts of its own it has embedded)."""
        cursor = self.cursor
        stage = self.stages[cursor] = with_embedding(self.stages[cursor], given, missing)
        base = stage.done

        def advance(done: int) -> None:
            if self.cursor == cursor and self.stages[cursor].counted != EXACT:
                self.stages[cursor] = replace(self.stages[cursor], done=base + done)
                self._emit()

        self._emit()
        return advance

    def report(self) -> RunReport:
        stage, share = self.stages[self.cursor], share_done(self.stages, self.cursor)
        elapsed = self._clock() - self._started if self._started is not None else 0.0
        shown = max(self._shown, share) if share is not None else None
        left = seconds_left(elapsed, share)
        return RunReport(stage.phase, stage.step, stage.unit, stage.done, stage.units,
                         None if shown is None else round(shown, 4), None if left is None else round(left, 1),
                         round(elapsed, 1), os.getpid(), self._wall())

    def close(self, finished: bool) -> None:
        """The run is over: the caller hears 100% when it finished, the bar goes, and the progress
        file goes when it is still this process's (a run waiting for the lock never wrote one)."""
        if finished and self.on_progress:
            self.on_progress(PER_MILLE, PER_MILLE)
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.layout is not None and self._started is not None:
            _remove_own(self.layout.progress)

    def _emit(self, force: bool = False) -> None:
        if self._started is None:
            return
        now = self._clock()
        if not force and now - self._refreshed < REFRESH_S:
            return
        self._refreshed = now
        report = self.report()
        self._shown = report.share if report.share is not None else self._shown
        self._draw(report)
        if self.on_progress:
            self.on_progress(report.per_mille, PER_MILLE)
        if self.layout is not None and (force or now - self._written >= WRITE_S):
            self._written = now
            write_report(self.layout.progress, report)

    def _draw(self, report: RunReport) -> None:
        """The one bar: `Indexing [embedding e5 4,210/9,811] ██████░░ 43% 02:11 left` (tqdm, so that
        the stages' tqdm.write lines print above it)."""
        if not self.show_bar:
            return
        bar_format = "{desc} {bar:24} " + report.bar_tail()  # digits, %, ":" and words: no braces
        if self._bar is None:
            self._bar = tqdm(total=PER_MILLE, initial=report.per_mille, desc=report.bar_desc(), bar_format=bar_format,
                             leave=False, dynamic_ncols=True)
            return
        self._bar.bar_format = bar_format
        self._bar.set_description_str(report.bar_desc(), refresh=False)
        self._bar.n = report.per_mille
        self._bar.refresh()


# ---------------------------------------------------------------- the run under way in this thread

_CURRENT: ContextVar[RunProgress | None] = ContextVar("codelens_run_progress", default=None)


@contextmanager
def tracking(layout: IndexLayout, show_bar: bool,
             on_progress: Callable[[int, int], None] | None = None) -> Iterator[RunProgress]:
    """The progress of the index run inside this block, which the stages below report to."""
    progress = RunProgress(layout, show_bar, on_progress)
    token = _CURRENT.set(progress)
    finished = False
    try:
        yield progress
        finished = True
    finally:
        try:
            progress.close(finished)  # the caller's last call still finds the run (current_report)
        finally:
            _CURRENT.reset(token)


def stage_begins(phase: str) -> None:
    if (progress := _CURRENT.get()) is not None:
        progress.begin(phase)


def step_begins(key: str) -> None:
    if (progress := _CURRENT.get()) is not None:
        progress.step(key)


def stage_count(done: int, total: int) -> None:
    if (progress := _CURRENT.get()) is not None:
        progress.count(done, total)


def expect_stages(stages: Sequence[Stage]) -> None:
    if (progress := _CURRENT.get()) is not None:
        progress.expect(stages)


def embedding_begins(given: int, missing: int) -> Callable[[int], None]:
    """What an embedding loop reports its batches to (nothing outside an index run)."""
    progress = _CURRENT.get()
    return progress.embedding(given, missing) if progress is not None else _ignore


def run_tracked() -> bool:
    """Whether an index run's progress is under way here: the loops then draw no bar of their own."""
    return _CURRENT.get() is not None


def current_report() -> RunReport | None:
    """Where the run under way in this thread is (its caller's on_progress asks)."""
    progress = _CURRENT.get()
    return progress.report() if progress is not None else None


def staged(phase: str, stage: Callable[[R], T]) -> Callable[[R], T]:
    """`stage`, telling the run's progress first that `phase` begins (build.py's stages)."""

    @wraps(stage)
    def run_stage(run: R) -> T:
        stage_begins(phase)
        return stage(run)

    return run_stage


def _ignore(_done: int) -> None:
    return None


# ---------------------------------------------------------------- the progress file


def write_report(path: Path, report: RunReport) -> None:
    """Written whole (a temporary file renamed over it): a reader never sees half of it."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        temporary.write_text(json.dumps(report.to_json()), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:  # a courtesy: the run goes on without it
        temporary.unlink(missing_ok=True)


def read_run_progress(index_dir: Path, now: float | None = None) -> RunReport | None:
    """The index run under way on this index, or None: no run, or its file is stale (its writer is
    gone, or it wrote nothing for STALE_S: a killed run's file stays behind)."""
    try:
        report = RunReport.from_json(json.loads(IndexLayout(index_dir).progress.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (time.time() if now is None else now) - report.updated_at > STALE_S or not _alive(report.pid):
        return None
    return report


def _alive(pid: int) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process
        return True
    except OSError:
        return False
    return True


def _remove_own(path: Path) -> None:
    """Remove the progress file if this process wrote it (another run may have taken over since)."""
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink(missing_ok=True)
    except (OSError, ValueError, AttributeError):
        pass
