"""Virtual-table scenarios seen through the real front end, cached: detections and signals.

Recording a scenario (rendering 1280x720 frames with noise and JPEG) and running the detector over
it costs seconds per second of play; the tracking stages after it cost milliseconds. So the
detector's output and the sensor board's decoded signals are kept in a cache keyed by the
scenario, its seed and a hash of the source that makes them (hardware/, vision/, calibration/,
railbird/simulate.py, railbird/recording.py): a change there re-renders, a change to tracking/
does not. The cache lives in ``$RAILBIRD_BENCH_CACHE`` (default: the system temp folder).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.file import load
from hardware.sensors.link import SensorLink
from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import ScenarioRun, run_scenario
from hardware.sim.sensors import Chunk, Faults, SimulatedBoard, drops_from_events
from railbird.recording import RecordingReader
from railbird.replay import pocket_signals
from railbird.simulate import SimRecordingConfig, record_scenario
from rules.balls import BALL_DIAMETER_MM, BallId
from rules.signals import PocketSignal
from vision.detections import BALL_ORDER, N_IDS, Detections
from vision.detector import BallDetector

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
_SOURCES = ("hardware", "vision", "calibration", "railbird/simulate.py", "railbird/recording.py")


@dataclass(frozen=True, slots=True)
class Seen:
    """One scenario run as the tracker receives it.

    Attributes:
        run: The scenario run (motion and exact truth).
        detections: The detector's output, one per recorded frame.
        signals: The pocket signals decoded from the recorded sensor bytes.
    """

    run: ScenarioRun
    detections: list[Detections]
    signals: list[PocketSignal]


def _source_hash() -> str:
    h = hashlib.sha256()
    for name in _SOURCES:
        path = ROOT / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """Where recorded scenarios' detections are kept."""
    base = os.environ.get("RAILBIRD_BENCH_CACHE") or Path(tempfile.gettempdir()) / "railbird-vt"
    return Path(base) / _source_hash()


def seen(name: str, seed: int = 1) -> Seen:
    """Scenario ``name`` with ``seed``, recorded, detected and decoded (from the cache if there)."""
    run = run_scenario(name, seed)
    path = cache_dir() / f"{name}-{seed}.pickle"
    if path.is_file():
        try:
            detections, signals = pickle.loads(path.read_bytes())
            return Seen(run, detections, signals)
        except (pickle.UnpicklingError, EOFError, ValueError, AttributeError) as exc:
            log.warning("%s: unreadable cache entry (%s); recording again", path, exc)
    detections, signals = _record_and_detect(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps((detections, signals)))
    tmp.replace(path)
    return Seen(run, detections, signals)


def _record_and_detect(run: ScenarioRun) -> tuple[list[Detections], list[PocketSignal]]:
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = record_scenario(
                run, Path(tmp) / "rec", SimRecordingConfig(render=RenderConfig())
            )
            reader = RecordingReader(folder)
            detector = BallDetector(load(folder / "calibration.json", image_size=reader.size))
            detections = [detector.detect(frame) for frame in reader]
            signals = pocket_signals(reader.serial_chunks())
            reader.close()
    finally:
        cv2.setNumThreads(threads)
    return detections, signals


# -- a detection noise model, for corpora too big to render -------------------------------------

CAMERA_HEIGHT_MM = 2600.0
REST_RADIUS_PX = 11.0
_RADIUS = BALL_DIAMETER_MM / 2


@dataclass(frozen=True, slots=True)
class NoiseModel:
    """What the detector does to the truth, measured on rendered virtual-table frames.

    Measured on the rendered scenarios (1280x720, 60 fps, noise, blur, JPEG; the figures in
    ``bench/results/pipeline.json`` come from the same frames): a ball at rest is found at the
    same wrong spot frame after frame (an offset of 0.6-1.0 mm a side, pixel-identical frames,
    99 % of frame-to-frame changes under 0.85 mm); a moving ball's error changes every frame
    (0.7 mm a side, a tail to 3.5 mm); the detector reports a sigma of about 0.75 mm; 0.6 % of
    visible balls missed, 0.7 % of detections ghosts; the true ball the most likely identity
    in 97.4 % of detections (median probability 0.92), another ball in 2.6 %. Vision looks for
    balls on the cloth and in the pocket openings only: one over a rail or off the table is not
    detected (`_in_view`).

    Attributes:
        rest_offset_mm: Standard deviation per axis of a resting ball's fixed offset.
        rest_jitter: Share of frames in which a resting ball's detection shifts a little.
        rest_jitter_mm: ... by this much per axis.
        moving_sigma_mm: Position noise per axis of a moving ball.
        tail_share: Share of a moving ball's detections with the tail's noise instead.
        tail_sigma_mm: That noise per axis, mm.
        reported_sigma_mm: The sigma the detector reports.
        miss: Probability a visible ball is not detected.
        ghost: Probability per frame of a ghost detection near some ball.
        wrong_id: Probability a detection names another ball most likely.
        fps: Frame rate.
    """

    rest_offset_mm: float = 0.8
    rest_jitter: float = 0.03
    rest_jitter_mm: float = 0.4
    moving_sigma_mm: float = 0.7
    tail_share: float = 0.02
    tail_sigma_mm: float = 2.5
    reported_sigma_mm: float = 0.75
    miss: float = 0.006
    ghost: float = 0.007
    wrong_id: float = 0.026
    fps: float = 60.0


EXACT = NoiseModel(
    rest_offset_mm=0.0,
    rest_jitter=0.0,
    moving_sigma_mm=0.0,
    tail_share=0.0,
    miss=0.0,
    ghost=0.0,
    wrong_id=0.0,
)
"""Every ball in view found exactly where it is, never missed, never named another ball (the
doubt about its look-alike stays), with the detector's usual reported sigma: the tracker and the
segmenter work as they do on real detections, so what they still get wrong is their own model's,
not the noise's (`bench.tracking`'s model limit)."""


@dataclass(frozen=True, slots=True)
class TruthFrame:
    """Where the balls truly are at one frame time (cheap: no orientations).

    Attributes:
        time: Session seconds.
        positions: (n, 3) centres, in `SimResult.balls` order.
        on_table: (n,) False once pocketed or off the table.
    """

    time: float
    positions: np.ndarray
    on_table: np.ndarray


def truth_frames(run: ScenarioRun, fps: float) -> list[TruthFrame]:
    """The truth sampled at the recording's frame times."""
    truth = run.truth
    count = int((truth.end_time + 0.5 - truth.start_time) * fps) + 1
    out = []
    for k in range(count):
        t = truth.start_time + k / fps
        segs = [traj.segment_at(t) for traj in run.result.trajectories]
        out.append(
            TruthFrame(
                t,
                np.array([seg.position(t) for seg in segs]),
                np.array([seg.on_table for seg in segs], dtype=bool),
            )
        )
    return out


def _identity(rng: np.random.Generator, row: int, model: NoiseModel) -> np.ndarray:
    """One detection's identity row: mostly its own ball, doubt mostly on its look-alike."""
    ids = np.zeros(N_IDS)
    p = float(np.clip(rng.beta(6.0, 0.6), 0.3, 0.96))
    doubt = 0.97 - p  # 0.03 stays unknown
    others = [k for k in range(N_IDS) if k != row]
    if rng.random() < model.wrong_id:
        wrong = others[int(rng.integers(len(others)))]
        ids[wrong], ids[row] = p, 0.7 * doubt
        others.remove(wrong)
        ids[others] = 0.3 * doubt / len(others)
        return ids
    ids[row] = p
    number = BALL_ORDER[row].number
    if 1 <= number <= 15 and number != 8:
        # The solid and the stripe of one colour: most of the doubt goes there.
        alike = BALL_ORDER.index(BallId(str(number + 8 if number < 8 else number - 8)))
        ids[alike] = 0.6 * doubt
        others.remove(alike)
        doubt *= 0.4
    ids[others] = doubt / len(others)
    return ids


def _in_view(table, x: float, y: float) -> bool:
    """Whether vision looks for a ball centred at (x, y): on the playing surface or in a pocket's
    opening (`vision.table_view`'s region), not over a rail or off the table."""
    inside = abs(x) <= table.length / 2 and abs(y) <= table.width / 2
    return inside or table.pocket_at((float(x), float(y))) is not None


def noisy_detections(
    run: ScenarioRun, seed: int, model: NoiseModel | None = None
) -> tuple[list[Detections], list[TruthFrame]]:
    """The scenario's truth sampled at the frame rate and passed through ``model``.

    Returns:
        The detections, and the truth frames they were made from.
    """
    model = model or NoiseModel()
    table = run.truth.table
    rng = np.random.default_rng(seed)
    frames = truth_frames(run, model.fps)
    n = len(run.result.balls)
    rows = [BALL_ORDER.index(b) for b in run.result.balls]
    offset = rng.normal(0.0, model.rest_offset_mm, (n, 2))
    previous = frames[0].positions[:, :2]
    out = []
    for k, tf in enumerate(frames):
        polygons = [
            np.array(o.polygon, dtype=np.float32)
            for t0, t1, o in run.result.occluders
            if t0 <= tf.time <= t1
        ]
        step = np.hypot(*(tf.positions[:, :2] - previous).T)
        previous = tf.positions[:, :2]
        pos, ids, radii = [], [], []
        for i in range(n):
            x, y, z = tf.positions[i]
            if not tf.on_table[i] or z < 0 or not _in_view(table, x, y):
                continue
            if rng.random() < model.miss:
                continue
            centre = (float(x), float(y))
            if any(cv2.pointPolygonTest(poly, centre, False) >= 0 for poly in polygons):
                continue
            if step[i] > 0.05:
                # Moving: a fresh error each frame; where it stops, a new fixed offset.
                tail = rng.random() < model.tail_share
                sigma = model.tail_sigma_mm if tail else model.moving_sigma_mm
                error = rng.normal(0.0, sigma, 2)
                offset[i] = rng.normal(0.0, model.rest_offset_mm, 2)
            else:
                error = offset[i].copy()
                if rng.random() < model.rest_jitter:
                    error += rng.normal(0.0, model.rest_jitter_mm, 2)
            pos.append((x + error[0], y + error[1]))
            ids.append(_identity(rng, rows[i], model))
            # An airborne ball is nearer the camera: it looks bigger (jump evidence).
            radii.append(REST_RADIUS_PX * (CAMERA_HEIGHT_MM - _RADIUS) / (CAMERA_HEIGHT_MM - z))
        if pos and rng.random() < model.ghost:
            base = np.array(pos[int(rng.integers(len(pos)))])
            angle = rng.uniform(0, 2 * np.pi)
            offset_mm = rng.uniform(60.0, 150.0) * np.array([np.cos(angle), np.sin(angle)])
            pos.append(tuple(base + offset_mm))
            ghost_ids = np.zeros(N_IDS)
            ghost_ids[int(rng.integers(N_IDS))] = 0.3  # the rest unknown
            ids.append(ghost_ids)
            radii.append(REST_RADIUS_PX)
        if pos:
            det = Detections.of(
                k,
                tf.time,
                np.array(pos),
                sigma=model.reported_sigma_mm,
                identity=np.array(ids),
                radius_px=np.array(radii),
            )
        else:
            det = Detections.empty(k, tf.time)
        out.append(det)
    return out, frames


def board_signals(run: ScenarioRun, seed: int) -> list[PocketSignal]:
    """The pocket signals the simulated sensor board's bytes decode to for ``run``."""
    truth = run.truth
    board = SimulatedBoard(
        drops_from_events(truth.events),
        end=truth.end_time + 0.5,
        start=truth.start_time - 1.0,
        faults=Faults(),
        seed=seed,
    )
    steps, _ = board.script()
    link = SensorLink("sim://pocket-sensors")
    link.opened(truth.start_time - 1.0)
    out: list[PocketSignal] = []
    for step in steps:
        if isinstance(step, Chunk):
            out.extend(link.receive(step.data, step.time))
    return out
