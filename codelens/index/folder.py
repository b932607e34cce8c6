"""The index folder on disk: checks, the one-writer lock, build-aside and swap, recovery.

An index folder holds the vectors (embedded ChromaDB), `index_metadata.json`, the
manifest and the sidecars. Named collections (`--collection NAME`) are index folders of
their own under `<db>/collections/NAME`; a swap of the root index carries them over.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from codelens.errors import DatabaseError
from codelens.index.layout import COLLECTIONS_DIR, IndexLayout
from codelens.index.metadata import is_codelens_index

LOCK_POLL_S = 0.1


def named_collections(db_path: Path) -> list[str]:
    """Names of the named collections under a --db folder that hold an index."""
    folder = IndexLayout(db_path).collections
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and is_codelens_index(p))


def check_target(layout: IndexLayout) -> None:
    """Refuse a folder we cannot write or that holds something other than a CodeLens index."""
    index_dir = layout.root
    if index_dir.exists() and not index_dir.is_dir():
        raise DatabaseError(f"--db {index_dir} is a file, not a folder - choose another path")
    # what would be lost by replacing the folder: anything but named collections
    if index_dir.is_dir() and not layout.is_index() and any(p.name != COLLECTIONS_DIR for p in index_dir.iterdir()):
        raise DatabaseError(
            f"--db {index_dir} holds files that are not a CodeLens index - refusing to replace "
            "them; choose an empty or new folder"
        )
    parent = layout.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"cannot create {parent} for the index: {exc}") from exc
    if not os.access(parent, os.W_OK):
        raise DatabaseError(f"cannot write the index: {parent} is not writable")


class IndexBusy(DatabaseError):
    """Another process (an index run, or a watcher's update) holds the writer's lock."""


@contextmanager
def index_lock(layout: IndexLayout, wait_s: float = 0.0) -> Iterator[None]:
    """One writer per folder at a time (an index run or a watcher's update); the lock dies with
    its process (kill -9 too). Waits up to wait_s for the other writer, then IndexBusy."""
    index_dir, lock_path = layout.root, layout.lock
    try:
        handle = open(lock_path, "w")  # noqa: SIM115 - closed by the with below
    except OSError as exc:  # e.g. /proc or /sys: root passes os.access but cannot create files
        raise DatabaseError(f"cannot write the index next to {index_dir}: {exc.strerror}") from exc
    deadline = time.monotonic() + wait_s
    with handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    raise IndexBusy(f"another index run is writing {index_dir} (an index run, or a watcher's "
                                    "update) - wait for it to finish, or stop the watcher") from exc
                time.sleep(LOCK_POLL_S)
        yield


@contextmanager
def writing(layout: IndexLayout, wait_s: float = 0.0) -> Iterator[None]:
    """What every writer of the folder holds while it writes (an index run, an update, the test
    vectors' swap): the writer's lock, a killed writer's swap recovered and its leftovers gone."""
    with index_lock(layout, wait_s=wait_s):
        recover_interrupted_swap(layout)
        yield


def fresh_build_dir(layout: IndexLayout, copy_from: IndexLayout | None, link: frozenset[str] = frozenset()) -> Path:
    """A sibling folder to build in, optionally a copy of the current index (named
    collections excluded: the swap carries them). Top-level entries named in `link` are
    hard-linked instead of copied: only for files the build never writes (an incremental
    update leaves ChromaDB's files alone), so a link costs nothing however large they are."""
    try:
        build_dir = Path(tempfile.mkdtemp(prefix=layout.build_prefix, dir=layout.parent))
        if copy_from is not None:
            for entry in copy_from.root.iterdir():
                if entry.name == COLLECTIONS_DIR:
                    continue
                copy = os.link if entry.name in link else shutil.copy2
                if entry.is_dir():
                    shutil.copytree(entry, build_dir / entry.name, copy_function=copy)
                else:
                    copy(entry, build_dir / entry.name)
        return build_dir
    except OSError as exc:
        raise DatabaseError(f"cannot write the index next to {layout.root}: {exc}") from exc


@contextmanager
def held_work_dir(layout: IndexLayout, tag: str = "") -> Iterator[Path]:
    """A folder beside the index for work done outside the writer's lock (the code graph an update
    left for later, test vectors, the word bridge), removed afterwards. Named like a build folder, so
    a killed process's leftover is cleaned by the next writer (recover_interrupted_swap), and locked
    (flock on the folder, released by the kernel however the process ends) while in use, so a writer
    never removes one that another thread or process is still building in."""
    for attempt in range(3):
        try:
            work = Path(tempfile.mkdtemp(prefix=f"{layout.build_prefix}{tag}", dir=layout.parent))
            handle = os.open(work, os.O_RDONLY)
        except FileNotFoundError:  # a writer cleaned it before it was locked: a new one
            if attempt == 2:
                raise
            continue
        except OSError as exc:
            raise DatabaseError(f"cannot write the index next to {layout.root}: {exc}") from exc
        break
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(handle)


def _in_use(folder: Path) -> bool:
    """Whether a live thread or process holds this work folder (held_work_dir)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)  # our own lock goes with it
    return False


def swap_into_place(build_dir: Path, layout: IndexLayout) -> None:
    """Put the finished build where the index is. Where the kernel can, the two folders
    trade places in one atomic step, so a reader never finds no index; elsewhere two
    renames, and the old index is never deleted before the new one is in place."""
    index_dir = layout.root
    if index_dir.exists():
        collections = layout.collections
        if collections.is_dir():
            os.replace(collections, IndexLayout(build_dir).collections)
        if _exchange(build_dir, index_dir):
            shutil.rmtree(build_dir, ignore_errors=True)  # it holds the old index now
            return
        old_dir = build_dir.parent / f"{layout.old_prefix}{os.getpid()}"
        shutil.rmtree(old_dir, ignore_errors=True)
        os.replace(index_dir, old_dir)
        os.replace(build_dir, index_dir)
        shutil.rmtree(old_dir, ignore_errors=True)
    else:
        os.replace(build_dir, index_dir)


def _exchange(first: Path, second: Path) -> bool:
    """Linux renameat2(RENAME_EXCHANGE): swap two paths atomically. False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0


def recover_interrupted_swap(layout: IndexLayout) -> None:
    """A run killed between the two renames left no index but a complete old one: restore it.
    Leftover build folders of killed runs are removed; a work folder in use (held_work_dir) is not."""
    index_dir = layout.root
    olds = sorted(layout.parent.glob(f"{layout.old_prefix}*"), key=lambda p: p.stat().st_mtime)
    if not index_dir.exists() and olds and is_codelens_index(olds[-1]):
        os.replace(olds.pop(), index_dir)
    for leftover in [*layout.parent.glob(f"{layout.build_prefix}*"), *olds]:
        if _in_use(leftover):  # built outside the writer's lock by a live thread or process
            continue
        carried = IndexLayout(leftover).collections  # moved there just before the kill: bring them back
        if carried.is_dir() and index_dir.is_dir() and not layout.collections.exists():
            os.replace(carried, layout.collections)
        shutil.rmtree(leftover, ignore_errors=True)
