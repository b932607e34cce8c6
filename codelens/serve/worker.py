"""One thread that owns the index and the models, for servers that take requests concurrently.

`codelens serve` (a threaded HTTP server) and the MCP server hand every call that touches the
Searcher to this thread, in arrival order: the Searcher is not built for concurrent use, and one
long-lived thread keeps e5's OpenMP thread pool warm. Connections are accepted, read and answered
on their own threads meanwhile, so many clients wait in line instead of being refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class ModelThread:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codelens-models")

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._executor.submit(fn, *args)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run fn on the model thread and wait for it (from a request thread)."""
        return self._executor.submit(fn, *args).result()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self._executor.submit(fn, *args))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
