"""The collector held off while an index run builds what it keeps (codelens/index/collector.py)."""

from __future__ import annotations

import gc
import threading

import pytest

from codelens.index.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_paused_inside_and_back_on_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_inner_pause_does_not_turn_it_on_under_an_outer_one() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_back_on_after_the_block_raises() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("a failed step")
    assert gc.isenabled()


def test_left_off_when_it_was_off_before() -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_pauses_in_two_threads_resume_once_both_end() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the other thread's pause is still under way
    release.set()
    thread.join(10)
    assert gc.isenabled()
