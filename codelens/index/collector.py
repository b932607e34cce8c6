"""Python's cyclic garbage collector held off while an index run builds what it keeps.

Chunking a tree and building the code graph allocate millions of small objects that all stay
alive until the step ends (every file's `ast` tree, scopes, bindings, edges). CPython's collector
counts those allocations and keeps walking everything alive to look for cycles that are not
there: on SymPy's 1,100 files half of the graph's CPU time was the collector's (bench/RESULTS.md,
session 23). A step that frees what it built when it returns gains nothing from it while it runs,
so these steps run with it paused and collect once at the end. So does opening an index to search it
(SymPy's 24k chunks, their fields, the lexical and ranking tables: no cycle among them), and a one-shot
`codelens context` whole.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0  # pauses under way (nested, or in several threads): the last one out resumes it
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with automatic collection off, then, the last pause out, turn it back on (if it
    was on) and collect the young generations once. Pauses nest and may overlap across threads."""
    global _holders, _resume
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            resume = _holders == 0 and _resume
            if resume:
                gc.enable()
        if resume:
            gc.collect(1)
