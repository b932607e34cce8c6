"""Open an index and warm its models in a background thread, for a process that serves people.

The app starts this when its page first renders: the page appears at once and says it is
warming up, and the first question does not pay the seconds of model loading (e5, MiniLM,
the word bridge) and index opening. The thread is a daemon: it never holds the process up
when it is asked to stop.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

from codelens.models import tune_threads_for_search
from codelens.open_index import OpenIndex
from codelens.settings import Settings


class WarmIndex:
    """An OpenIndex being opened and warmed in the background; `result()` waits for it."""

    def __init__(self, settings: Settings) -> None:
        tune_threads_for_search()
        self.started = time.monotonic()
        self.duration_s: float | None = None
        self._future: Future[OpenIndex] = Future()
        self._thread = threading.Thread(target=self._run, args=(settings,),
                                        name="codelens-warm-up", daemon=True)
        self._thread.start()

    def _run(self, settings: Settings) -> None:
        try:
            index = OpenIndex(settings)
            index.warm_up()
        except BaseException as exc:  # handed to whoever asks for the searcher
            self._future.set_exception(exc)
        else:
            self._future.set_result(index)
        finally:
            self.duration_s = time.monotonic() - self.started

    def done(self) -> bool:
        return self._future.done()

    def elapsed_s(self) -> float:
        return self.duration_s if self.duration_s is not None else time.monotonic() - self.started

    def result(self, timeout: float | None = None) -> OpenIndex:
        """The warmed index (waits); raises what opening it raised."""
        return self._future.result(timeout)
