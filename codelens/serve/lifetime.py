"""How long a `codelens serve` lives: one per index (a lock held for the process's life), an
idle timer for the servers a search starts in the background, and `serve --stop`.

The lock is an flock on a small file beside the announcement (the temp folder, this user's):
the kernel drops it when the process dies, however it dies, so a crashed server never blocks
the next one. It is taken before the index is built or opened, so a second search that
arrives while the first server is still building or warming up sees it and starts no other.
The file holds the holder's pid, for `serve --stop` and for the CLI's "is one coming?" check.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from codelens.serve.client import announcement_file
from codelens.settings import environment_value

IDLE_EXIT_S = 15 * 60  # a background server with no request for this long exits


def idle_exit_s(chosen: float | None = None) -> float:
    """`chosen` (the server's Settings.idle_exit_s), else CODELENS_IDLE_EXIT_S, else IDLE_EXIT_S."""
    if chosen is None:
        chosen = environment_value("idle_exit_s")
    return float(IDLE_EXIT_S if chosen is None else chosen)


def lock_file(index_dir: Path, chroma_url: str = "") -> Path:
    return announcement_file(index_dir, chroma_url).with_suffix(".lock")


class ServeLock:
    """Held by the one server of an index for as long as its process lives."""

    def __init__(self, index_dir: Path, chroma_url: str = "") -> None:
        self.path = lock_file(index_dir, chroma_url)
        self._descriptor: int | None = None

    def acquire(self) -> bool:
        """True when this process now holds it; False when another live process does."""
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            return False
        os.ftruncate(descriptor, 0)
        os.write(descriptor, str(os.getpid()).encode("ascii"))
        self._descriptor = descriptor
        return True

    def release(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)  # closing drops the flock
            self._descriptor = None


def holder_pid(index_dir: Path, chroma_url: str = "") -> int | None:
    """The pid of the live server (starting or serving) of this index, or None."""
    path = lock_file(index_dir, chroma_url)
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # held: read who holds it
            raw = os.read(descriptor, 32).decode("ascii", errors="replace").strip()
            return int(raw) if raw.isdigit() else -1
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None
    finally:
        os.close(descriptor)


def stop_server(index_dir: Path, chroma_url: str = "", wait_s: float = 15.0) -> int | None:
    """SIGTERM the server of this index and wait until it is gone; its pid, or None if none ran."""
    pid = holder_pid(index_dir, chroma_url)
    if pid is None or pid <= 0:
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and holder_pid(index_dir, chroma_url) is not None:
        time.sleep(0.1)
    return pid


class IdleTimer:
    """Calls `on_idle` once no `touch` came for idle_s seconds (a daemon thread)."""

    def __init__(self, idle_s: float, on_idle: Callable[[], None]) -> None:
        self.idle_s = idle_s
        self._last = time.monotonic()
        self._on_idle = on_idle
        self._thread = threading.Thread(target=self._run, name="codelens-idle", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def touch(self) -> None:
        self._last = time.monotonic()

    def _run(self) -> None:
        while True:
            left = self.idle_s - (time.monotonic() - self._last)
            if left <= 0:
                self._on_idle()
                return
            time.sleep(min(left, 5.0))
