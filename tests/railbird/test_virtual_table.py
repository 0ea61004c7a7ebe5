"""The virtual table's lockstep clock: the camera waits for the monitor, never the reverse."""

from __future__ import annotations

import threading

from railbird.virtual_table import FrameClock


def test_the_clock_reads_the_next_frames_moment_and_waits_for_the_loop() -> None:
    clock = FrameClock(10.0, fps=10.0)
    assert clock.now() == 10.0
    woke = threading.Event()

    def camera() -> None:
        clock.sleep(0.1)  # the next frame's moment
        woke.set()

    waiter = threading.Thread(target=camera)
    waiter.start()
    assert not woke.wait(0.2)  # the loop has not finished a frame: the camera waits
    clock.frame_done(10.0)
    assert woke.wait(5.0)
    waiter.join()
    assert 10.1 < clock.now() < 10.1 + 1e-3
    clock.frame_done(9.0)  # never goes back
    assert clock.now() > 10.1


def test_release_ends_every_wait() -> None:
    clock = FrameClock(0.0, fps=30.0)
    waiter = threading.Thread(target=clock.sleep, args=(100.0,))
    waiter.start()
    clock.release()
    waiter.join(timeout=5.0)
    assert not waiter.is_alive()
