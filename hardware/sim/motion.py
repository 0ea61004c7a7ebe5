"""One ball's motion between events: phases, their analytic equations, and trajectory pieces.

A ball on the cloth is in one of four phases (the standard model of billiard physics, as in
Alciatore's notes and pooltool's evolution equations, re-derived here):

- sliding: the cloth contact point slips; friction ``mu_slide * g`` acts against the slip,
  so velocity and spin change linearly until the slip vanishes after ``2|u| / (7 mu_s g)``;
- rolling: no slip; rolling resistance ``mu_roll * g`` slows the ball along its path;
- spinning: in place, only the vertical spin left, decaying linearly;
- stationary.

Vertical (side) spin decays at a constant rate in every phase and never couples to the path
on the cloth. Within a phase the position is quadratic in time, so event times are roots of
polynomials. Scripted phases (airborne, driven by the cue, carried by a hand, in a pocket)
use the same quadratic form with their own accelerations.

Units: millimetres, seconds, radians; table frame (DESIGN.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BALL_RADIUS_MM

GRAVITY_MM_S2 = 9810.0

_SPEED_EPS = 1e-6
"""mm/s below which a speed or slip is zero (numerical noise of the event solver)."""
_SPIN_EPS = 1e-6
"""rad/s below which a spin is zero."""


@dataclass(frozen=True, slots=True)
class PhysicsParams:
    """Physical constants of balls, cloth and cushions.

    Defaults are the field's usual figures (Dr. Dave Alciatore's measured properties, the
    defaults pooltool uses): sliding friction 0.2, rolling resistance 0.01, spin friction
    ``4R/9`` (in metres), ball-ball friction 0.05, restitution 0.95 ball-ball and 0.75-0.85
    ball-cushion (more loss head on), cushion friction 0.2.

    Attributes:
        radius: Ball radius, mm.
        mu_slide: Ball-cloth sliding friction coefficient.
        mu_roll: Rolling resistance coefficient.
        mu_spin: Spin (vertical axis) friction coefficient.
        mu_ball: Ball-ball friction (gives cut-induced and spin-induced throw).
        e_ball: Ball-ball restitution.
        e_cushion_head_on: Cushion restitution for a head-on hit.
        e_cushion_glancing: Cushion restitution for a glancing hit.
        mu_cushion: Ball-cushion friction.
        cushion_contact_height: Height of the cushion nose above the ball centre, mm (WPA
            nose height 63.5 % of the diameter): the rebound takes the roll out of the ball.
        cluster_gap: Balls closer than this (mm) when one of them is hit take the blow
            together (a rack): see `contact.simultaneous`. 0 resolves contacts pair by pair.
        plastic_speed: Approach speed (mm/s) under which a contact is fully inelastic, so
            resting contacts do not chatter through endless tiny bounces.
    """

    radius: float = BALL_RADIUS_MM
    mu_slide: float = 0.2
    mu_roll: float = 0.01
    mu_spin: float = 0.028575 * 4 / 9
    mu_ball: float = 0.05
    e_ball: float = 0.95
    e_cushion_head_on: float = 0.75
    e_cushion_glancing: float = 0.85
    mu_cushion: float = 0.2
    cushion_contact_height: float = 0.635 * 57.15 - BALL_RADIUS_MM
    plastic_speed: float = 5.0
    cluster_gap: float = 0.5

    @property
    def spin_decay(self) -> float:
        """Vertical-spin deceleration, rad/s^2 (5 mu_sp g / 2R)."""
        return 5 * self.mu_spin * GRAVITY_MM_S2 / (2 * self.radius)

    def e_cushion(self, cos_incidence: float) -> float:
        """Cushion restitution for a hit at ``acos(cos_incidence)`` from the normal."""
        c2 = min(1.0, max(0.0, cos_incidence)) ** 2
        return self.e_cushion_glancing + (self.e_cushion_head_on - self.e_cushion_glancing) * c2


class Phase(StrEnum):
    """How a ball is moving between two events."""

    SLIDING = "sliding"
    ROLLING = "rolling"
    SPINNING = "spinning"
    STATIONARY = "stationary"
    AIRBORNE = "airborne"
    """Off the cloth (a jump, a ball leaving the table): ballistic, no friction, no contacts."""
    DRIVEN = "driven"
    """Moved by the cue tip or a hand along a set path: a push, a double hit, a placement."""
    POCKETED = "pocketed"
    """Gone into a pocket (or off the table to the floor): not on the table any more."""
    OFF_TABLE = "off-table"
    """Resting off the playing surface (on a rail top)."""

    @property
    def on_cloth(self) -> bool:
        """True for the phases the physics engine evolves and collides."""
        return self in _ON_CLOTH

    @property
    def moving(self) -> bool:
        """True while the ball moves or spins."""
        return self not in (Phase.STATIONARY, Phase.POCKETED, Phase.OFF_TABLE)


_ON_CLOTH = frozenset({Phase.SLIDING, Phase.ROLLING, Phase.SPINNING, Phase.STATIONARY})

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class BallState:
    """A ball's state at one instant.

    Attributes:
        position: Centre (x, y, z) mm; z is the height above the cloth (the radius on it).
        velocity: Centre velocity (vx, vy, vz) mm/s.
        spin: Angular velocity (wx, wy, wz) rad/s in the table frame.
    """

    position: Vec3
    velocity: Vec3 = (0.0, 0.0, 0.0)
    spin: Vec3 = (0.0, 0.0, 0.0)

    @property
    def xy(self) -> Vec2:
        """The position on the table plane."""
        return (self.position[0], self.position[1])


def slip(state: BallState, radius: float) -> Vec2:
    """Velocity of the ball's cloth contact point: v + w x (-R z)."""
    vx, vy, _ = state.velocity
    wx, wy, _ = state.spin
    return (vx - radius * wy, vy + radius * wx)


def cloth_phase(state: BallState, radius: float) -> Phase:
    """The phase a ball on the cloth is in, from its state."""
    ux, uy = slip(state, radius)
    if math.hypot(ux, uy) > _SPEED_EPS:
        return Phase.SLIDING
    if math.hypot(state.velocity[0], state.velocity[1]) > _SPEED_EPS:
        return Phase.ROLLING
    if abs(state.spin[2]) > _SPIN_EPS:
        return Phase.SPINNING
    return Phase.STATIONARY


class Segment:
    """One piece of a ball's trajectory: a phase with quadratic motion from ``t0`` to ``t1``.

    Position ``p(t) = p0 + v0 s + a s^2 / 2`` with ``s = t - t0``; horizontal spin
    ``w(t) = w0 + b s``; vertical spin decays linearly to zero at ``spin_decay`` rad/s^2.
    ``t1`` is infinite until a later event ends the segment.
    """

    __slots__ = ("a", "b", "on_table", "p0", "phase", "spin_decay", "t0", "t1", "v0", "w0")

    def __init__(
        self,
        t0: float,
        phase: Phase,
        p0: Vec3,
        v0: Vec3,
        a: Vec3,
        w0: Vec3,
        b: Vec2 = (0.0, 0.0),
        spin_decay: float = 0.0,
        on_table: bool = True,
    ) -> None:
        self.t0 = t0
        self.t1 = math.inf
        self.phase = phase
        self.p0 = p0
        self.v0 = v0
        self.a = a
        self.w0 = w0
        self.b = b
        self.spin_decay = spin_decay
        self.on_table = on_table

    def position(self, t: float) -> Vec3:
        """Centre at time ``t`` (clamped to the segment)."""
        s = self._s(t)
        p, v, a = self.p0, self.v0, self.a
        h = 0.5 * s * s
        return (p[0] + v[0] * s + a[0] * h, p[1] + v[1] * s + a[1] * h, p[2] + v[2] * s + a[2] * h)

    def velocity(self, t: float) -> Vec3:
        """Centre velocity at time ``t``."""
        s = self._s(t)
        v, a = self.v0, self.a
        return (v[0] + a[0] * s, v[1] + a[1] * s, v[2] + a[2] * s)

    def spin(self, t: float) -> Vec3:
        """Angular velocity at time ``t``."""
        s = self._s(t)
        w, b = self.w0, self.b
        wz = w[2]
        if self.spin_decay > 0:
            wz = math.copysign(max(abs(wz) - self.spin_decay * s, 0.0), wz)
        return (w[0] + b[0] * s, w[1] + b[1] * s, wz)

    def state(self, t: float) -> BallState:
        """The full state at time ``t``."""
        return BallState(self.position(t), self.velocity(t), self.spin(t))

    def _s(self, t: float) -> float:
        end = self.t1 if self.t1 < math.inf else t
        return min(max(t, self.t0), end) - self.t0

    def __repr__(self) -> str:
        return f"Segment({self.phase}, {self.t0:.4f}-{self.t1:.4f}, p0={self.p0}, v0={self.v0})"


def cloth_segment(t0: float, state: BallState, params: PhysicsParams) -> tuple[Segment, float]:
    """The segment a ball on the cloth follows from ``state``, and how long its phase lasts.

    Returns:
        The segment and the duration until the phase ends (``inf`` for a stationary ball).
    """
    r = params.radius
    x, y, _ = state.position
    vx, vy, _ = state.velocity
    wx, wy, wz = state.spin
    phase = cloth_phase(state, r)
    decay = params.spin_decay
    pos = (x, y, r)
    if phase is Phase.SLIDING:
        ux, uy = slip(state, r)
        u = math.hypot(ux, uy)
        ex, ey = ux / u, uy / u
        f = params.mu_slide * GRAVITY_MM_S2
        k = 5 * f / (2 * r)
        seg = Segment(
            t0,
            phase,
            pos,
            (vx, vy, 0.0),
            (-f * ex, -f * ey, 0.0),
            (wx, wy, wz),
            (-k * ey, k * ex),
            decay,
        )
        return seg, 2 * u / (7 * f)
    if phase is Phase.ROLLING:
        speed = math.hypot(vx, vy)
        ex, ey = vx / speed, vy / speed
        f = params.mu_roll * GRAVITY_MM_S2
        w0 = (-vy / r, vx / r, wz)
        seg = Segment(
            t0,
            phase,
            pos,
            (vx, vy, 0.0),
            (-f * ex, -f * ey, 0.0),
            w0,
            (f * ey / r, -f * ex / r),
            decay,
        )
        return seg, speed / f
    if phase is Phase.SPINNING:
        seg = Segment(
            t0, phase, pos, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, wz), (0.0, 0.0), decay
        )
        return seg, abs(wz) / decay
    return Segment(t0, phase, pos, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), math.inf


def end_state(segment: Segment, t: float, params: PhysicsParams) -> BallState:
    """The state where a cloth phase ends at ``t``, snapped exactly onto the next phase.

    Sliding ends rolling (spin set to the rolling value); rolling ends with the ball stopped
    (only vertical spin left); spinning ends with the ball still.
    """
    st = segment.state(t)
    r = params.radius
    x, y, _ = st.position
    if segment.phase is Phase.SLIDING:
        vx, vy, _ = st.velocity
        return BallState((x, y, r), (vx, vy, 0.0), (-vy / r, vx / r, st.spin[2]))
    if segment.phase is Phase.ROLLING:
        return BallState((x, y, r), (0.0, 0.0, 0.0), (0.0, 0.0, st.spin[2]))
    return BallState((x, y, r))


def kinetic_energy(state: BallState, radius: float) -> float:
    """Kinetic energy per unit mass (translation + rotation), mm^2/s^2."""
    v2 = sum(c * c for c in state.velocity)
    w2 = sum(c * c for c in state.spin)
    return 0.5 * v2 + 0.5 * 0.4 * radius * radius * w2
