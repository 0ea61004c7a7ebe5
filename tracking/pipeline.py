"""Wiring the stages with plain iterators, so a test can drive any stage from a list.

frames = track(table, with_signals(detections, signals))
pairs = segment(table, frames)
shots = assemble(table, pairs)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from calibration.table import TableSpec
from rules.events import ShotEvent
from rules.shot import Shot
from rules.signals import PocketSignal
from tracking.assembler import AssemblerConfig, ShotAssembler
from tracking.model import TrackerConfig, TrackFrame
from tracking.segmenter import Segmenter, SegmenterConfig
from tracking.tracker import Tracker
from vision.detections import Detections


def with_signals(
    detections: Iterable[Detections], signals: Iterable[PocketSignal]
) -> Iterator[tuple[Detections, tuple[PocketSignal, ...]]]:
    """Pair each frame with the pocket signals stamped at or before it (and after the last)."""
    queue = sorted(signals, key=lambda s: s.time)
    i = 0
    for det in detections:
        j = i
        while j < len(queue) and queue[j].time <= det.time:
            j += 1
        yield det, tuple(queue[i:j])
        i = j


def track(
    table: TableSpec,
    inputs: Iterable[tuple[Detections, Sequence[PocketSignal]]],
    config: TrackerConfig | None = None,
) -> Iterator[TrackFrame]:
    """Run the tracker over (detections, signals) pairs."""
    tracker = Tracker(table, config)
    for det, signals in inputs:
        yield tracker.update(det, signals)


def segment(
    table: TableSpec, frames: Iterable[TrackFrame], config: SegmenterConfig | None = None
) -> Iterator[tuple[TrackFrame | None, list[ShotEvent]]]:
    """Run the segmenter over track frames; yield each frame with its events, then ``None``
    with the events the end of the input decides (`Segmenter.finish`: a shot at rest ends)."""
    segmenter = Segmenter(table, config)
    for frame in frames:
        yield frame, segmenter.update(frame)
    yield None, segmenter.finish()


def assemble(
    table: TableSpec,
    pairs: Iterable[tuple[TrackFrame | None, list[ShotEvent]]],
    config: AssemblerConfig | None = None,
) -> Iterator[Shot]:
    """Run the assembler over `segment`'s pairs; yield each shot when it ends (and the last
    one when the input does, unfinished unless its balls rest)."""
    assembler = ShotAssembler(table, config)
    final: list[ShotEvent] = []
    for frame, events in pairs:
        if frame is None:
            final = events
            break
        yield from assembler.update(frame, events)
    yield from assembler.finish(final)


def shots(
    table: TableSpec,
    detections: Iterable[Detections],
    signals: Iterable[PocketSignal] = (),
    tracker_config: TrackerConfig | None = None,
) -> list[Shot]:
    """Everything at once: detections and signals in, Shot records out."""
    frames = track(table, with_signals(detections, signals), tracker_config)
    return list(assemble(table, segment(table, frames)))
