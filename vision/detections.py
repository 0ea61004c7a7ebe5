"""Detections: what vision saw in one frame, as parallel numpy arrays in table millimetres.

One row per detected ball. Positions are ball centres projected down onto the cloth (the ball's
base, rule 3.12) after the camera pose has mapped them onto the plane of ball centres, so the
tracker never sees pixels. Identity is a probability per ball id, in `BallId` order, and a row may
sum to less than one: the rest is "unknown" (a ball vision could not name, e.g. under glare).

The container is validated on creation and its arrays are read-only, so a stage downstream can
keep a reference without fear that an earlier stage changes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np
from numba import njit

from rules.balls import BallId
from rules.errors import RailbirdError
from rules.table import Point

BALL_ORDER: tuple[BallId, ...] = tuple(BallId)
"""Column order of `Detections.identity`: cue, 1, ..., 15."""

N_IDS = len(BALL_ORDER)

_ROW_SUM_SLACK = 1e-6

Polygon = tuple[Point, ...]
"""A polygon in table millimetres, vertices in order."""


class DetectionsError(RailbirdError, ValueError):
    """A Detections container was built from arrays that do not fit together."""


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, slots=True, eq=False)
class Detections:
    """The balls vision found in one frame.

    Attributes:
        frame: Frame index from the source's start.
        time: Session-clock seconds of the frame.
        positions: (n, 2) ball centres in table mm (the base of each ball).
        sigma: (n,) standard deviation of each position, mm (isotropic).
        identity: (n, 16) probability of each ball id, `BALL_ORDER` columns; each row sums to at
            most 1, the remainder meaning "unknown ball".
        radius_px: (n,) apparent radius in pixels, as the camera would show that ball at the
            table's centre (its stretch off the camera's axis taken out): a ball leaving the
            cloth looks bigger (jumps).
        blur_velocity: (n, 2) velocity in mm/s read from the motion-blur streak, nan where none.
        confidence: (n,) probability, 0-1, that the row is a ball at all.
        occluded: Polygons in table mm where something over the table (an arm, a cue, a player)
            may hide balls in this frame.
    """

    frame: int
    time: float
    positions: np.ndarray = field(repr=False)
    sigma: np.ndarray = field(repr=False)
    identity: np.ndarray = field(repr=False)
    radius_px: np.ndarray = field(repr=False)
    blur_velocity: np.ndarray = field(repr=False)
    confidence: np.ndarray = field(repr=False)
    occluded: tuple[Polygon, ...] = ()

    def __post_init__(self) -> None:
        where = f"detections of frame {self.frame} at t={self.time}"
        if not np.isfinite(self.time):
            raise DetectionsError(f"{where}: time is not a finite number")
        arrays = {
            name: _readonly(getattr(self, name))
            for name in (
                "positions",
                "sigma",
                "identity",
                "radius_px",
                "blur_velocity",
                "confidence",
            )
        }
        n = arrays["positions"].shape[0] if arrays["positions"].ndim == 2 else -1
        want = {
            "positions": (n, 2),
            "sigma": (n,),
            "identity": (n, N_IDS),
            "radius_px": (n,),
            "blur_velocity": (n, 2),
            "confidence": (n,),
        }
        for name, shape in want.items():
            if arrays[name].shape != shape or n < 0:
                raise DetectionsError(
                    f"{where}: {name} has shape {arrays[name].shape}, want {shape} "
                    "(positions must be (n, 2) and every array must have n rows)"
                )
        if not _plainly_valid(arrays, n):
            _check_values(where, arrays, n)
        polys = tuple(tuple((float(x), float(y)) for x, y in poly) for poly in self.occluded)
        for i, poly in enumerate(polys):
            if len(poly) < 3:
                raise DetectionsError(f"{where}: occluded polygon {i} has {len(poly)} vertices")
        for name, a in arrays.items():
            object.__setattr__(self, name, a)
        object.__setattr__(self, "occluded", polys)
        object.__setattr__(self, "frame", int(self.frame))
        object.__setattr__(self, "time", float(self.time))

    def __len__(self) -> int:
        return int(self.positions.shape[0])

    @classmethod
    def empty(cls, frame: int, time: float, occluded: tuple[Polygon, ...] = ()) -> Detections:
        """A frame in which vision found no ball (the table may still be partly hidden)."""
        return cls.of(frame, time, np.zeros((0, 2)), occluded=occluded)

    @classmethod
    def of(
        cls,
        frame: int,
        time: float,
        positions: np.ndarray | list[Point],
        *,
        sigma: float | np.ndarray = 2.0,
        identity: np.ndarray | None = None,
        radius_px: float | np.ndarray = 10.0,
        blur_velocity: np.ndarray | None = None,
        confidence: float | np.ndarray = 1.0,
        occluded: tuple[Polygon, ...] = (),
    ) -> Detections:
        """Detections from positions, with scalars broadcast and unknown identity by default.

        Args:
            frame: Frame index.
            time: Session seconds.
            positions: (n, 2) ball centres in mm.
            sigma: Position standard deviation, mm, one for all or one per row.
            identity: (n, 16) identity probabilities; all-unknown when None.
            radius_px: Apparent radius in pixels.
            blur_velocity: (n, 2) blur velocity in mm/s; all nan when None.
            confidence: Probability that each row is a ball.
            occluded: Occluding polygons in table mm.
        """
        pos = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
        n = pos.shape[0]
        return cls(
            frame=frame,
            time=time,
            positions=pos,
            sigma=_per_row(sigma, n),
            identity=np.zeros((n, N_IDS)) if identity is None else identity,
            radius_px=_per_row(radius_px, n),
            blur_velocity=np.full((n, 2), np.nan) if blur_velocity is None else blur_velocity,
            confidence=_per_row(confidence, n),
            occluded=occluded,
        )

    def restamped(self, frame: int, time: float) -> Detections:
        """These detections again for another frame (nothing moved since): the arrays, checked
        when these were made and read-only, are shared rather than checked again.

        Raises:
            DetectionsError: ``time`` is not a finite number.
        """
        if not math.isfinite(time):
            raise DetectionsError(f"detections of frame {frame} at t={time}: time is not finite")
        out = object.__new__(Detections)
        for f in fields(Detections):
            object.__setattr__(out, f.name, getattr(self, f.name))
        object.__setattr__(out, "frame", int(frame))
        object.__setattr__(out, "time", float(time))
        return out

    def identity_of(self, row: int) -> dict[BallId, float]:
        """One row's identity as a mapping (non-zero entries only)."""
        return {b: float(p) for b, p in zip(BALL_ORDER, self.identity[row], strict=True) if p > 0}

    @property
    def unknown(self) -> np.ndarray:
        """(n,) probability that each row is a ball vision could not name."""
        return np.clip(1.0 - self.identity.sum(axis=1), 0.0, 1.0)


def one_hot(balls: list[BallId] | tuple[BallId, ...], p: float = 1.0) -> np.ndarray:
    """(n, 16) identity rows giving each listed ball probability ``p`` (the rest unknown)."""
    out = np.zeros((len(balls), N_IDS))
    for i, b in enumerate(balls):
        out[i, BALL_ORDER.index(BallId(b))] = p
    return out


def _plainly_valid(arrays: dict[str, np.ndarray], n: int) -> bool:
    """Whether every value is in range (`_in_range`: one compiled pass, where a dozen array
    steps cost a frame's detector a tenth of a millisecond); `_check_values` then says what is
    wrong when not."""
    return n == 0 or _in_range(
        arrays["positions"],
        arrays["sigma"],
        arrays["identity"],
        arrays["radius_px"],
        arrays["blur_velocity"],
        arrays["confidence"],
        1.0 + _ROW_SUM_SLACK,
    )


@njit(cache=True, nogil=True)
def _in_range(
    positions: np.ndarray,
    sigma: np.ndarray,
    identity: np.ndarray,
    radius_px: np.ndarray,
    blur_velocity: np.ndarray,
    confidence: np.ndarray,
    max_row_sum: float,
) -> bool:
    """The checks of `_check_values`, passed or not (a NaN fails every comparison). A row sum
    within rounding of the limit counts as failed, for `_check_values` to judge."""
    for i in range(len(positions)):
        if not (math.isfinite(positions[i, 0]) and math.isfinite(positions[i, 1])):
            return False
        if not (0.0 < sigma[i] < math.inf and 0.0 <= radius_px[i] < math.inf):
            return False
        if not 0.0 <= confidence[i] <= 1.0:
            return False
        total = 0.0
        for j in range(identity.shape[1]):
            p = identity[i, j]
            if not 0.0 <= p <= 1.0:
                return False
            total += p
        if not total < max_row_sum - 1e-12:
            return False
        bx, by = blur_velocity[i, 0], blur_velocity[i, 1]
        if math.isinf(bx) or math.isinf(by) or math.isnan(bx) != math.isnan(by):
            return False
    return True


def _check_values(where: str, arrays: dict[str, np.ndarray], n: int) -> None:
    """Raise `DetectionsError` naming the first value out of range or not finite."""
    for name in ("positions", "sigma", "identity", "radius_px", "confidence"):
        bad = ~np.isfinite(arrays[name])
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise DetectionsError(f"{where}: {name} row {row} is not finite")
    _check_range(where, "sigma", arrays["sigma"], 0.0, np.inf, open_low=True)
    _check_range(where, "radius_px", arrays["radius_px"], 0.0, np.inf)
    _check_range(where, "confidence", arrays["confidence"], 0.0, 1.0)
    _check_range(where, "identity", arrays["identity"], 0.0, 1.0)
    sums = arrays["identity"].sum(axis=1) if n else np.zeros(0)
    over = np.flatnonzero(sums > 1.0 + _ROW_SUM_SLACK)
    if over.size:
        raise DetectionsError(
            f"{where}: identity row {int(over[0])} sums to {sums[over[0]]:.4f}, above 1"
        )
    blur = arrays["blur_velocity"]
    half_nan = np.isnan(blur).any(axis=1) != np.isnan(blur).all(axis=1)
    if half_nan.any() or np.isinf(blur).any():
        row = int(np.flatnonzero(half_nan | np.isinf(blur).any(axis=1))[0])
        raise DetectionsError(
            f"{where}: blur_velocity row {row} must be two finite numbers or two nan"
        )


def _per_row(value: float | np.ndarray, n: int) -> np.ndarray:
    a = np.asarray(value, dtype=np.float64)
    return np.full(n, float(a)) if a.ndim == 0 else a


def _check_range(
    where: str, name: str, a: np.ndarray, low: float, high: float, open_low: bool = False
) -> None:
    bad = (a <= low) if open_low else (a < low)
    bad |= a > high
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        bound = f"({low}, {high}]" if open_low else f"[{low}, {high}]"
        raise DetectionsError(f"{where}: {name}{list(idx)} = {a[idx]} is outside {bound}")
