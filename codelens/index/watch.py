"""Watch mode: the index follows a folder source within seconds of a save.

`watchfiles` (inotify on Linux; no polling loop of ours) reports changed paths; bursts (a
formatter touching 50 files, a `git checkout`) arrive as one set and become one incremental
update (update.py). Only what an index run would read counts: `.py` files outside skipped
folders and `.gitignore` (source.py's rules); a `.gitignore` or a folder that changes means
"compare every file" (cheap: hashes, no chunking of unchanged files).

The watcher records what it is doing in a small status file beside the index (layout.py:
`status`), so `stats`, MCP `index_status` and the page show "up to date" or "updating N files",
the time of the last update and the last error, from any process. A failed update is recorded
and the watcher goes on; a file that cannot be parsed is a warning of the update, never a stop.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from codelens.errors import CodeLensError, SourceError
from codelens.index.layout import IndexLayout
from codelens.index.progressive import load_catalog
from codelens.index.update import LOCK_WAIT_S, UpdateResult, prewarm, refresh_deferred, update_index
from codelens.ingest.source import SKIP_DIRS
from codelens.ingest.tree import SourceTree, live_tree
from codelens.models import Embedder
from codelens.settings import Settings
from codelens.workspace_file import is_workspace_file

DEBOUNCE_MS = 1600  # the longest a burst is gathered before it is handed on
STEP_MS = 100  # quiet this long after a change: the burst is over
RUST_TIMEOUT_MS = 5000  # the watcher wakes this often when nothing happens (a stop; a re-watch's resync)
PREWARM_SLICE = 200  # chunks prewarmed between two chances for an update to run
QUIET_S = 5.0  # no change for this long: the code graph an update left for later is rebuilt (a burst of
# edits, a formatter or an agent, must not compete with it for the interpreter)
STOP_WAIT_S = 10.0  # the longest a stop waits for an update under way (it is finished, never cut)
UP_TO_DATE, UPDATING, STARTING, STOPPED = "up to date", "updating", "starting", "stopped"


@dataclass(frozen=True)
class WatchStatus:
    state: str  # UP_TO_DATE, UPDATING, STARTING or STOPPED
    source: str
    pid: int = 0
    pending_files: int = 0  # while updating: how many files
    last_update: str = ""  # ISO time of the last finished update (or check that found nothing)
    last_duration_s: float = 0.0
    last_error: str = ""  # the last failed update's message ("" once one succeeds again)
    last_warnings: tuple[str, ...] = ()  # the last update's warnings (a file that did not parse)
    updates: int = 0  # updates applied since the watcher started

    def line(self) -> str:
        """One line for `stats`, `index_status` and the page."""
        if self.state == UPDATING and not self.pending_files:
            head = "updating (checking every file)"
        elif self.state == UPDATING:
            head = f"updating {self.pending_files} file{'s' if self.pending_files != 1 else ''}"
        else:
            head = self.state
        parts = [f"watch: {head}"]
        if self.last_update:
            parts.append(f"last update {self.last_update}")
        if self.last_error:
            parts.append(f"last error: {self.last_error}")
        if self.last_warnings:
            parts.append(f"{len(self.last_warnings)} warnings (e.g. {self.last_warnings[0]})")
        return ", ".join(parts)


def read_watch_status(index_dir: Path) -> WatchStatus | None:
    """The status a live watcher of this index wrote, or None (nobody watches it)."""
    try:
        raw = json.loads(IndexLayout(index_dir).status.read_text(encoding="utf-8"))
        status = WatchStatus(**{**raw, "last_warnings": tuple(raw.get("last_warnings", ()))})
        if status.state != STOPPED:
            os.kill(status.pid, 0)
    except (OSError, ValueError, TypeError):  # no file, a dead watcher, or another format
        return None
    return status if status.state != STOPPED else None


def watch_filter(source: Path | SourceTree) -> Callable[[object, str], bool]:
    """The `watchfiles` filter: indexed files, `.gitignore`, folders (no suffix), a repository's
    `.git` appearing at a folder workspace's top (a repository to add), and the workspace file."""
    tree = source if isinstance(source, SourceTree) else live_tree(source)
    workspace_file = tree.source.resolve() if tree.from_file else None
    folders = sorted((root for root in tree.roots if root.live), key=lambda r: -len(r.folder.parts))

    def keep(_change: object, path: str) -> bool:
        candidate = Path(path)
        resolved = candidate.resolve()
        if resolved == workspace_file:
            return True
        root = next((r for r in folders if resolved.is_relative_to(r.folder)), None)
        if root is None:
            return False
        parts = resolved.relative_to(root.folder).parts
        if not root.label and len(parts) == 2 and parts[1] == ".git":
            return True  # `git init` or a clone in a folder workspace: maybe a new repository
        if any(part in SKIP_DIRS for part in parts):
            return False
        return candidate.name == ".gitignore" or candidate.suffix == "" or tree.accepts(candidate)

    return keep


def paths_to_update(changed: Iterable[str], source: Path | None = None) -> list[str] | None:
    """The files an update looks at; None (every file) when a .gitignore, a folder or the
    workspace file `source` changed."""
    paths = sorted(set(changed))
    whole = source.resolve() if source is not None and source.is_file() else None
    if any(Path(p).name == ".gitignore" or Path(p).suffix == "" or Path(p) == whole for p in paths):
        return None
    return paths


@dataclass
class IndexWatcher:
    """Keeps the index of `settings` fresh with the folder `source`, on a thread of its own
    (`start`/`stop`) or in the foreground (`run`)."""

    source: Path
    settings: Settings
    embedder: Embedder | None = None  # its own: the searcher's may be busy on another thread
    on_update: Callable[[UpdateResult], None] | None = None
    debounce_ms: int = DEBOUNCE_MS
    status: WatchStatus = field(init=False)

    def __post_init__(self) -> None:
        if not self.source.is_dir() and not is_workspace_file(self.source):
            raise SourceError(f"cannot watch {self.source}: only a folder source or a workspace file is watched "
                              "(a zip never changes) - index a folder with --source, or run without --watch")
        self.source = self.source.resolve()
        self.status = WatchStatus(STARTING, str(self.source), os.getpid())
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._helpers: list[threading.Thread] = []  # the catch-up and the code graph's threads of each run
        self._updating = threading.Lock()
        self._deferred = threading.Event()  # an update left the code graph for later
        self._last_change = 0.0

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Watch on a thread of its own (again after a stop; nothing when already watching)."""
        if self.running:
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.run, name="codelens-watch", daemon=True)
        self._thread.start()

    @property
    def threads(self) -> list[threading.Thread]:
        """This watcher's threads still alive: watching, catching up, rebuilding the code graph."""
        every = [self._thread, *self._helpers]
        return [thread for thread in every if thread is not None and thread.is_alive()]

    def stop(self, timeout: float = STOP_WAIT_S) -> bool:
        """Stop watching and wait (up to `timeout` seconds in all) for every thread of the watcher,
        so no update of it writes after this returns; False when one was still busy at the end
        (an update under way is finished, never cut: it swaps in whole or not at all)."""
        self._stop.set()
        self._deferred.set()  # wakes the code graph's thread to see the stop (a restart finds nothing to do)
        deadline = time.monotonic() + timeout
        while (alive := self.threads) and time.monotonic() < deadline:  # the watch thread may be starting helpers
            for thread in alive:
                thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread is not None and not self._thread.is_alive():
            self._thread = None
        self._helpers = [thread for thread in self._helpers if thread.is_alive()]
        return not alive

    def run(self) -> None:
        """Catch up with what changed while nobody watched, then follow every change until stop."""
        import watchfiles

        stop = self._stop  # this run's: a later start() makes a new one, and old threads keep theirs
        self._publish(self.status)
        # Catch up on a thread of its own while watching starts at once: a save made meanwhile
        # is seen, and its update waits for the catch-up (one update at a time).
        helpers = [threading.Thread(target=self._catch_up, args=(stop,), name="codelens-catch-up", daemon=True),
                   threading.Thread(target=self._deferred_loop, args=(stop,), name="codelens-graph", daemon=True)]
        self._helpers = [*(thread for thread in self._helpers if thread.is_alive()), *helpers]
        for thread in helpers:
            thread.start()
        try:
            resync = False
            while not stop.is_set():
                resync = self._follow(watchfiles, stop, resync)
        finally:
            stop.set()  # also when watching ended otherwise (Ctrl-C in the foreground): the helpers end too
            self._deferred.set()
            deadline = time.monotonic() + STOP_WAIT_S
            for thread in helpers:  # their last status must not land after "stopped"
                thread.join(max(0.0, deadline - time.monotonic()))
            self._publish(replace(self.status, state=STOPPED))

    def _follow(self, watchfiles, stop: threading.Event, resync: bool) -> bool:
        """Watch the source's folders (a workspace file's: every folder repository, and the file
        itself) until stopped, or until the workspace file changes (then its folders are read again:
        True). `resync`: the folders just changed, so every file is compared once the new watch has
        started (a save between the last update and this watch would go unseen)."""
        try:
            tree = live_tree(self.source)
        except CodeLensError as exc:  # a workspace file being edited: try again in a moment
            self._publish(replace(self.status, last_error=str(exc)))
            stop.wait(1.0)
            return resync
        targets = [*tree.watched_folders, *([tree.source] if tree.from_file else [])]
        for changes in watchfiles.watch(*targets, watch_filter=watch_filter(tree), debounce=self.debounce_ms,
                                        step=STEP_MS, stop_event=stop, rust_timeout=RUST_TIMEOUT_MS,
                                        yield_on_timeout=True, raise_interrupt=False):
            if resync:  # the new folders are watched now: what was saved before that, once more
                resync = False
                self.update(None)
            if not changes:  # a quiet spell
                continue
            self._last_change = time.monotonic()
            paths = paths_to_update((path for _, path in changes), self.source)
            self.update(paths)
            if paths is None and tree.from_file and any(Path(p) == tree.source for _, p in changes):
                return True  # the workspace file changed: follow its folders as they are now
        return False

    def _deferred_loop(self, stop: threading.Event) -> None:
        """Rebuild what updates leave for later (the code graph) once the folder is quiet; the work
        is dropped when a change comes meanwhile, so it never holds up an update."""
        while not stop.is_set():
            if not self._deferred.wait(timeout=1.0):
                continue
            if time.monotonic() - self._last_change < QUIET_S:
                stop.wait(QUIET_S / 4)
                continue
            if stop.is_set():
                return
            self._deferred.clear()
            started = self._last_change
            try:
                refresh_deferred(self.source, self.settings, still_wanted=lambda s=started: self._last_change == s)
            except (CodeLensError, OSError, ValueError, RuntimeError) as exc:
                self._publish(replace(self.status, last_error=f"code graph: {exc}"))
            if self._last_change != started:
                self._deferred.set()  # changed meanwhile: again at the next quiet moment

    def _catch_up(self, stop: threading.Event) -> None:
        """What changed while nobody watched, then what updates remember per chunk (so the first
        update is as quick as the later ones). Each step first looks whether the watcher was
        stopped meanwhile: a stopped watcher starts no more work."""
        if stop.is_set():
            return
        self.update(None)
        self._deferred.set()  # a watcher killed before its code graph left one to rebuild
        if stop.is_set():
            return
        self._finish_test_vectors()
        with suppress(CodeLensError, OSError, ValueError):  # a cache: may fail safely
            chunks = [e.chunk for e in load_catalog(self.settings.index_dir)]
            for start in range(0, len(chunks), PREWARM_SLICE):
                if stop.is_set():
                    return
                with self._updating:  # slice by slice: an update never waits long for it
                    prewarm(chunks[start : start + PREWARM_SLICE])

    def _finish_test_vectors(self) -> None:
        """The test vectors an index run stopped before adding (index/test_vectors.py): embedded
        without holding updates up (the writer's lock is taken for the swap only), with an
        embedder of their own (the updates' may be busy on the watch thread)."""
        from codelens.index.test_vectors import finish_test_vectors

        try:
            finish_test_vectors(self.settings.index_dir, self.settings.with_overrides(show_progress=False),
                                lock_wait_s=LOCK_WAIT_S)
        except (CodeLensError, OSError, ValueError, RuntimeError) as exc:
            self._publish(replace(self.status, last_error=f"test vectors: {exc}"))

    def update(self, paths: list[str] | None) -> UpdateResult | None:
        """One incremental update (None: compare every file); failures are recorded, not raised."""
        with self._updating:
            return self._update(paths)

    def _update(self, paths: list[str] | None) -> UpdateResult | None:
        self._publish(replace(self.status, state=UPDATING, pending_files=len(paths) if paths is not None else 0))
        started = time.perf_counter()
        try:
            if self.embedder is None:  # one for every update: its engines load once
                from codelens.index.metadata import read_stats
                from codelens.models import load_embedder

                self.embedder = load_embedder(read_stats(self.settings.index_dir).model)
            result = update_index(self.source, self.settings, paths, embedder=self.embedder)
            if self.on_update is not None:
                self.on_update(result)
            self._last_change = time.monotonic()
            self._deferred.set()  # the code graph follows in a quiet moment (searches have the code now)
        except (CodeLensError, OSError, ValueError, RuntimeError) as exc:
            self._publish(replace(self.status, state=UP_TO_DATE, pending_files=0, last_error=str(exc),
                                  last_update=_now(), last_duration_s=round(time.perf_counter() - started, 2)))
            return None
        applied = self.status.updates + (result.mode != "unchanged")
        self._publish(replace(self.status, state=UP_TO_DATE, pending_files=0, last_update=_now(), last_error="",
                              last_duration_s=result.duration_s, last_warnings=result.warnings, updates=applied))
        return result

    def _publish(self, status: WatchStatus) -> None:
        self.status = status
        target = IndexLayout(self.settings.index_dir).status
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(json.dumps(asdict(status)), encoding="utf-8")
            os.replace(temporary, target)
        except OSError:  # a status file is a courtesy: the watcher goes on without one
            pass


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def watcher_for(settings: Settings, embedder: Embedder | None = None,
                on_update: Callable[[UpdateResult], None] | None = None,
                source: Path | None = None) -> tuple[IndexWatcher | None, str]:
    """A watcher for `source` (the folder an index run was just asked to index: `index.py
    --source FOLDER --watch`), else for the folder the index records it was built from; or
    (None, why not): a zip source, a source that is gone, or no index yet."""
    from codelens.index.metadata import read_stats

    if source is None:
        try:
            source = Path(read_stats(settings.index_dir).source)
        except CodeLensError as exc:
            return None, f"not watching: {exc}"
    if not source.is_dir() and not is_workspace_file(source):
        what = "a zip never changes" if source.is_file() else "it is not there any more"
        return None, f"not watching {source}: {what}"
    return IndexWatcher(source, settings, embedder=embedder, on_update=on_update), f"watching {source.resolve()}"
