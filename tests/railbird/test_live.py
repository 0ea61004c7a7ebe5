"""The live loop over the virtual table: events as they happen, a ruling per shot."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from calibration.calibrate import calibrate_corners, calibrate_image
from calibration.camera import CameraModel
from calibration.file import Calibration
from calibration.solve import HeadSide, nose_corners_mm
from calibration.table import TableSpec
from hardware.clock import FakeClock
from hardware.frames import Frame
from hardware.sim.camera_source import VirtualCamera
from hardware.sim.render import RenderConfig, TableRenderer
from hardware.sim.scenarios import run_scenario
from railbird.live import DELAY_WINDOW, LiveLoop, LiveStats, LiveUpdate
from rules.balls import BallId
from rules.errors import CameraError
from rules.events import EventKind
from rules.referee import Referee
from rules.signals import PocketSignal

T9 = TableSpec.standard("9ft")
SIZE = (960, 540)


def _calibration() -> Calibration:
    camera = CameraModel.overhead(T9, image_size=SIZE)
    corners = camera.project(nose_corners_mm(T9, HeadSide.LEFT))
    return calibrate_corners(corners, SIZE, T9, lens=camera)


def _blank(index: int) -> Frame:
    return Frame(index, index / 60, np.zeros((SIZE[1], SIZE[0], 3), np.uint8))


@pytest.mark.slow
def test_a_shot_is_called_live_with_the_pocket_signal_fused() -> None:
    scenario = run_scenario("cut-shot", seed=2)
    render = RenderConfig(resolution=SIZE, fps=30.0)
    camera = CameraModel.overhead(T9, image_size=render.resolution)
    renderer = TableRenderer(T9, camera, render)
    start, end = scenario.truth.start_time, scenario.truth.end_time + 0.5
    calibration = calibrate_image(
        renderer.render(scenario.result.snapshot(start), 0), T9, lens=camera
    )
    updates: list[LiveUpdate] = []
    # The scenario pots the 13: a game whose table holds it, since no other ball is ever named.
    referee = Referee.new("8-ball", ("A", "B"), T9)
    loop = LiveLoop(calibration, referee, FakeClock(), updates.append)
    for event in scenario.truth.events:
        if event.kind is EventKind.POCKETED and event.pocket is not None:
            loop.signal(PocketSignal(event.pocket, event.time + 0.003, 0.001, 1))
    for frame in VirtualCamera(scenario.result.snapshot, renderer, start=start, end=end):
        loop.process(frame)
    loop.finish()
    stats = loop.stats
    pocketed = [u.event for u in updates if u.event and u.event.kind is EventKind.POCKETED]
    assert [e.balls for e in pocketed] == [
        e.balls for e in scenario.truth.events if e.kind is EventKind.POCKETED
    ]
    rulings = [u.ruling for u in updates if u.ruling is not None]
    assert len(rulings) == stats.rulings == 1
    seen = next(u.shot for u in updates if u.shot is not None)
    truth = scenario.truth.shots[0]
    assert seen.first_contact is not None and truth.first_contact is not None
    assert seen.first_contact.ball is truth.first_contact.ball


def test_a_reader_that_falls_behind_drops_frames_and_counts_them() -> None:
    camera = CameraModel.overhead(T9, image_size=(960, 540))
    from calibration.calibrate import calibrate_corners
    from calibration.solve import HeadSide, nose_corners_mm

    calibration = calibrate_corners(
        camera.project(nose_corners_mm(T9, HeadSide.LEFT)), (960, 540), T9, lens=camera
    )
    frames = [
        Frame(i, i / 60, __import__("numpy").zeros((540, 960, 3), "uint8")) for i in range(200)
    ]
    loop = LiveLoop(calibration, Referee.new("9-ball", ("A", "B"), T9), FakeClock())
    stats = loop.run(frames, threading.Event())
    assert stats.frames_grabbed == 200
    assert stats.frames_processed + stats.frames_dropped == 200
    assert stats.frames_dropped > 0  # 200 frames arrive at once: the newest wins


def test_a_failing_source_ends_the_run_without_losing_what_was_seen() -> None:
    def broken():
        yield _blank(0)
        raise CameraError("camera 0: unplugged")

    loop = LiveLoop(_calibration(), Referee.new("9-ball", ("A", "B"), T9), FakeClock())
    stats = loop.run(broken(), threading.Event())
    assert stats.frames_grabbed == 1 and stats.rulings == 0


def test_a_bug_in_the_grabber_is_raised_not_swallowed() -> None:
    def buggy():
        yield _blank(0)
        raise ZeroDivisionError("a bug")

    loop = LiveLoop(_calibration(), Referee.new("9-ball", ("A", "B"), T9), FakeClock())
    with pytest.raises(ZeroDivisionError):
        loop.run(buggy(), threading.Event())


def test_console_inputs_enter_the_log_and_the_recording(tmp_path) -> None:
    from railbird.recording import RecordingReader, RecordingWriter
    from railbird.web.hub import InputQueue
    from rules.inputs import CallShot
    from rules.table import PocketId

    recorder = RecordingWriter.create(tmp_path / "rec", SIZE, 60.0)
    queue = InputQueue()
    updates: list[LiveUpdate] = []
    loop = LiveLoop(
        _calibration(),
        Referee.new("9-ball", ("A", "B"), T9),
        FakeClock(5.0),
        updates.append,
        recorder,
        queue,
    )
    worker = threading.Thread(
        target=queue.submit, args=(CallShot(BallId.NINE, PocketId.FOOT_LEFT),)
    )
    worker.start()
    while not queue.drain(loop.apply_input):
        pass
    worker.join(timeout=2.0)
    recorder.close()
    assert isinstance(loop.referee.log.entries[-1].item, CallShot)
    recorded = RecordingReader(tmp_path / "rec").inputs()
    assert recorded[0].kind == "call-shot" and recorded[0].time == 5.0
    assert updates and updates[-1].ruling is None


def test_corrupt_frames_are_skipped_counted_and_shown_and_the_run_goes_on(tmp_path) -> None:
    from railbird.recording import RecordingReader, RecordingWriter

    clock = FakeClock()
    recorder = RecordingWriter.create(tmp_path / "rec", SIZE, 60.0)
    loop = LiveLoop(_calibration(), Referee.new("9-ball", ("A", "B"), T9), clock, recorder=recorder)
    assert loop.camera_status() == "ok"
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (SIZE[1] // 2, SIZE[0] // 2, 3), dtype=np.uint8)
    for index in range(6):
        clock.advance(1 / 60)
        good = index not in (2, 3)
        frame = _blank(index) if good else Frame(index, index / 60, noise)
        loop._record(frame)  # what the grabber does with every frame
        loop.process(frame)
        if index == 3:
            status = loop.camera_status()
            assert status.startswith("degraded: 2 unusable frames")
            assert "960x540" in status  # it says what is wrong
    recorder.close()
    stats = loop.stats
    assert stats.frames_processed == 4 and stats.frames_unusable == 2
    assert stats.frames_unrecorded == 2
    recorded = RecordingReader(tmp_path / "rec").frame_times()
    assert [f.time for f in recorded] == [i / 60 for i in (0, 1, 4, 5)]
    clock.advance(2.0)
    assert loop.camera_status() == "ok"  # shown while it lasts, then cleared


def test_a_long_session_keeps_only_the_latest_delays() -> None:
    stats = LiveStats()
    # A day of play emits far more events than the window: old delays give way to new ones.
    for k in range(DELAY_WINDOW + 500):
        stats.event_delays_s.append(1.0 if k < 500 else 0.02)
        stats.ruling_delays_s.append(0.05)
    assert len(stats.event_delays_s) == len(stats.ruling_delays_s) == DELAY_WINDOW
    summary = stats.summary()
    assert summary["event_delay_median_s"] == summary["event_delay_p99_s"] == 0.02
    assert summary["ruling_delay_median_s"] == 0.05


def test_two_racks_of_a_match_through_the_loop_the_console_and_the_feed_rule_3_36(
    tmp_path,
) -> None:
    from railbird.feed import ScoreboardFeed
    from railbird.recording import RecordingReader, RecordingWriter
    from railbird.web.hub import Hub, InputQueue
    from rules.errors import RailbirdError
    from rules.inputs import RackReady
    from rules.match import BreakOrder, MatchConfig
    from rules.table import PocketId
    from tests.factories import break_shot

    config = MatchConfig(race_to=2, break_order=BreakOrder.LOSER)
    referee = Referee.new("9-ball", ("A", "B"), T9, match=config)
    recorder = RecordingWriter.create(tmp_path / "rec", SIZE, 60.0)
    hub, queue = Hub(), InputQueue()
    feed = ScoreboardFeed(referee, hub)
    loop = LiveLoop(_calibration(), referee, FakeClock(5.0), feed.update, recorder, queue)

    def rack_won_on_the_break(index: int, t: float) -> None:
        # What the loop does with a shot tracking finished: the referee rules, the feed shows.
        shot = break_shot(index=index, pocket=(("9", PocketId.FOOT_LEFT),))
        timeline = referee.record(shot, t)
        recorder.write_game(referee.log)
        feed.update(LiveUpdate(t, t, shot=shot, ruling=timeline.rulings[-1]))

    rack_won_on_the_break(0, 1.0)
    _, board = hub.latest()
    assert board is not None and board.score == (1, 0) and board.next_breaker == 1
    console = threading.Thread(target=queue.submit, args=(RackReady(),))  # the web server's
    console.start()
    while not queue.drain(loop.apply_input):
        pass
    console.join(timeout=2.0)
    _, board = hub.latest()
    assert board is not None and (board.rack, board.breaker, board.game_over) == (2, 1, False)
    with pytest.raises(RailbirdError, match="not over"):
        loop.apply_input(RackReady())
    rack_won_on_the_break(1, 9.0)  # B breaks (the loser) and wins: 1-1
    _, board = hub.latest()
    assert board is not None and board.score == (1, 1) and board.next_breaker == 0
    loop.apply_input(RackReady())
    rack_won_on_the_break(2, 20.0)
    _, board = hub.latest()
    assert board is not None and board.match_winner == "A" and board.next_breaker is None
    recorder.close()
    recorded = RecordingReader(tmp_path / "rec")
    assert [i.kind for i in recorded.inputs()] == ["rack-ready", "rack-ready"]
    resumed = Referee(recorded.game_log(), T9)  # type: ignore[arg-type]
    assert resumed.match == referee.match and resumed.match is not None
    assert [r.breaker for r in resumed.match.racks] == ["A", "B", "A"]
