"""What a contact does to the balls: ball-ball and ball-cushion impulses, and the cue strike.

Both contacts are instantaneous impulses at the equator of equal, uniform balls:

- the normal impulse follows the restitution law on the normal approach speed;
- friction at the contact point (ball-ball: ``mu_ball``, cushion: ``mu_cushion``) acts
  against the horizontal slip there, capped by Coulomb (``mu * normal impulse``) and by
  the impulse that would stop the slip (``m u / 7`` ball-ball, ``2 m u / 7`` cushion), so
  it can only take energy out. It throws object balls off the line of centres on a cut
  or with side spin, and changes side spin at a cushion.

Below ``plastic_speed`` a contact is fully inelastic and, at a cushion, the spin that would
drive the ball back into the rubber is removed: a resting contact then stays put instead of
chattering through endless tiny bounces.
"""

from __future__ import annotations

import math

from hardware.sim.motion import BallState, PhysicsParams, Vec2


def ball_ball(
    a: BallState,
    b: BallState,
    params: PhysicsParams,
    a_driven: bool = False,
    b_driven: bool = False,
) -> tuple[BallState, BallState]:
    """The states of two touching balls right after their contact.

    Args:
        a: One ball's state at contact.
        b: The other's.
        params: Physical constants.
        a_driven: ``a`` is pushed by the cue (infinite mass: a double hit, a push).
        b_driven: ``b`` is driven.

    Returns:
        The new states of ``a`` and ``b``.
    """
    ax, ay, _ = a.position
    bx, by, _ = b.position
    dist = math.hypot(bx - ax, by - ay)
    nx, ny = (bx - ax) / dist, (by - ay) / dist
    tx, ty = -ny, nx
    avx, avy, _ = a.velocity
    bvx, bvy, _ = b.velocity
    approach = (avx - bvx) * nx + (avy - bvy) * ny
    if approach <= 0:
        return a, b
    e = params.e_ball if approach >= params.plastic_speed else 0.0
    # Share of the impulse each ball takes (a driven ball is immovable by the other).
    ka, kb = _shares(a_driven, b_driven)
    jn = (1 + e) * approach / (ka + kb) if ka + kb > 0 else 0.0
    slip_t = (avx - bvx) * tx + (avy - bvy) * ty + params.radius * (a.spin[2] + b.spin[2])
    stick = abs(slip_t) / (3.5 * (ka + kb)) if ka + kb > 0 else 0.0
    jt = -math.copysign(min(params.mu_ball * jn, stick), slip_t)
    dwz = 2.5 * jt / params.radius
    new_a = BallState(
        a.position,
        (avx - ka * (jn * nx - jt * tx), avy - ka * (jn * ny - jt * ty), 0.0),
        (a.spin[0], a.spin[1], a.spin[2] + ka * dwz),
    )
    new_b = BallState(
        b.position,
        (bvx + kb * (jn * nx - jt * tx), bvy + kb * (jn * ny - jt * ty), 0.0),
        (b.spin[0], b.spin[1], b.spin[2] + kb * dwz),
    )
    if e == 0.0:
        new_a = _roll_along(new_a, (nx, ny), params.radius) if ka else new_a
        new_b = _roll_along(new_b, (nx, ny), params.radius) if kb else new_b
    return new_a, new_b


def _roll_along(state: BallState, n: Vec2, radius: float) -> BallState:
    """Let cloth friction finish its work along ``n`` at once: the ball's motion along ``n``
    becomes a roll (the end state of sliding, so it only takes energy out).

    After a slow, fully inelastic contact this keeps a rolling ball's spin from driving it
    back into the ball it rests against, again and again.
    """
    nx, ny = n
    tx, ty = -ny, nx
    vx, vy, _ = state.velocity
    wx, wy, wz = state.spin
    v_n = vx * nx + vy * ny
    w_t = wx * tx + wy * ty
    rolled = (5 * v_n + 2 * radius * w_t) / 7
    dv, dw = rolled - v_n, rolled / radius - w_t
    return BallState(
        state.position,
        (vx + dv * nx, vy + dv * ny, 0.0),
        (wx + dw * tx, wy + dw * ty, wz),
    )


def _shares(a_driven: bool, b_driven: bool) -> tuple[float, float]:
    if a_driven and b_driven:
        return 0.0, 0.0
    if a_driven:
        return 0.0, 1.0
    if b_driven:
        return 1.0, 0.0
    return 1.0, 1.0


def cushion(state: BallState, normal: Vec2, params: PhysicsParams) -> BallState:
    """A ball's state right after it hits a rubber face (cushion nose, jaw or jaw point).

    Args:
        state: The ball at contact.
        normal: Unit normal of the face, pointing toward the ball.
        params: Physical constants.
    """
    nx, ny = normal
    tx, ty = -ny, nx
    vx, vy, _ = state.velocity
    wx, wy, wz = state.spin
    vn = vx * nx + vy * ny
    if vn >= 0:
        return state
    vt = vx * tx + vy * ty
    speed = math.hypot(vx, vy)
    r = params.radius
    if -vn < params.plastic_speed:
        # A resting contact: stop the normal motion and the roll that drives into the rubber.
        w_along_t = wx * tx + wy * ty
        return BallState(
            state.position, (vt * tx, vt * ty, 0.0), (w_along_t * tx, w_along_t * ty, wz)
        )
    e = params.e_cushion(-vn / speed)
    jn = -(1 + e) * vn
    slip_t = vt - r * wz
    jt = -math.copysign(min(params.mu_cushion * jn, 2 * abs(slip_t) / 7), slip_t)
    vn_new = -e * vn
    vt_new = vt + jt
    wz_new = wz - 2.5 * jt / r
    # The nose touches above the centre, so the push back also turns the ball over: it takes
    # the roll into the cushion out of the ball. Scaled down if need be so energy never grows.
    w_n = wx * nx + wy * ny
    w_t = wx * tx + wy * ty
    turn = 2.5 * params.cushion_contact_height * jn / (r * r)
    inertia = 0.4 * r * r
    before = 0.5 * (vx * vx + vy * vy) + 0.5 * inertia * (wx * wx + wy * wy + wz * wz)
    after = 0.5 * (vn_new**2 + vt_new**2) + 0.5 * inertia * (w_n**2 + w_t**2 + wz_new**2)
    w_t += turn * _energy_safe_share(
        0.5 * inertia * turn * turn, inertia * w_t * turn, after - before
    )
    return BallState(
        state.position,
        (vn_new * nx + vt_new * tx, vn_new * ny + vt_new * ty, 0.0),
        (w_n * nx + w_t * tx, w_n * ny + w_t * ty, wz_new),
    )


def _energy_safe_share(a: float, b: float, c: float) -> float:
    """Largest share in [0, 1] of a change adding ``a s^2 + b s`` to an energy already
    changed by ``c`` (<= 0) that keeps the total change <= 0."""
    if a <= 0:
        return 1.0 if b + c <= 0 else 0.0
    disc = b * b - 4 * a * c
    if disc < 0:
        return 0.0
    return max(0.0, min(1.0, (-b + math.sqrt(disc)) / (2 * a)))


def cue_strike(
    speed: float,
    heading_deg: float,
    follow: float = 0.0,
    side: float = 0.0,
    radius: float = 28.575,
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Velocity and spin a level cue gives the cue ball.

    The tip hits at ``follow * R`` above the centre (negative: draw) and ``side * R`` to the
    right of it (negative: left english). The impulse along the cue gives speed ``speed``;
    its moment about the centre gives ``w = 5/(2 R^2) * (offset x v)``: follow at 0.4 R is
    natural roll.

    Args:
        speed: Cue ball speed after the strike, mm/s.
        heading_deg: Direction of the cue, degrees counter-clockwise from +x.
        follow: Vertical tip offset as a fraction of the radius (+ above centre).
        side: Horizontal tip offset as a fraction of the radius (+ right of centre).
        radius: Ball radius, mm.

    Returns:
        (velocity, spin) of the cue ball.

    Raises:
        ValueError: the offset is more than 0.6 R from centre (a miscue), or speed negative.
    """
    if speed < 0:
        raise ValueError(f"cue ball speed must be >= 0, got {speed}")
    if math.hypot(follow, side) > 0.6:
        raise ValueError(f"tip offset ({follow}, {side}) R is past 0.6 R: a miscue")
    h = math.radians(heading_deg)
    dx, dy = math.cos(h), math.sin(h)
    k = 2.5 * speed / radius
    # Offset x direction: up x d = left of d (rolling axis); right x d = up.
    wx, wy = -dy * follow * k, dx * follow * k
    wz = side * k
    return (speed * dx, speed * dy, 0.0), (wx, wy, wz)


def simultaneous(
    positions: list[tuple[float, float]],
    velocities: list[tuple[float, float]],
    contacts: list[tuple[int, int]],
    e: float,
    driven: list[bool] | None = None,
    iterations: int = 200,
) -> tuple[list[tuple[float, float]], list[float]]:
    """Velocities after a cluster of touching balls collides all at once (a rack on the break).

    Balls closer than a hair are in contact together: resolving their contacts one after
    another sends the whole blow down one line of balls, as in Newton's cradle, while real
    balls in a rack squash against all their neighbours at once. Here the compression is
    solved for every contact together (projected Gauss-Seidel on the non-approach
    conditions), then each contact gives back ``e`` times its compression impulse
    (Poisson's restitution), so the blow spreads through the rack.

    Args:
        positions: Ball centres.
        velocities: Ball velocities (horizontal).
        contacts: Pairs of indices in contact.
        e: Restitution.
        driven: Balls that are immovable (pushed by the cue), if any.
        iterations: Gauss-Seidel sweeps.

    Returns:
        New velocities and each contact's total normal impulse (per unit mass).
    """
    n = len(positions)
    inv = [0.0 if driven and driven[k] else 1.0 for k in range(n)]
    vel = [list(v) for v in velocities]
    normals = []
    for a, b in contacts:
        dx = positions[b][0] - positions[a][0]
        dy = positions[b][1] - positions[a][1]
        d = math.hypot(dx, dy)
        normals.append((dx / d, dy / d))
    lam = [0.0] * len(contacts)
    for _ in range(iterations):
        worst = 0.0
        for c, (a, b) in enumerate(contacts):
            w = inv[a] + inv[b]
            if w == 0:
                continue
            nx, ny = normals[c]
            approach = (vel[a][0] - vel[b][0]) * nx + (vel[a][1] - vel[b][1]) * ny
            new = max(lam[c] + approach / w, 0.0)
            d = new - lam[c]
            if d:
                lam[c] = new
                vel[a][0] -= inv[a] * d * nx
                vel[a][1] -= inv[a] * d * ny
                vel[b][0] += inv[b] * d * nx
                vel[b][1] += inv[b] * d * ny
                worst = max(worst, abs(d))
        if worst < 1e-9:
            break
    for c, (a, b) in enumerate(contacts):
        nx, ny = normals[c]
        extra = e * lam[c]
        vel[a][0] -= inv[a] * extra * nx
        vel[a][1] -= inv[a] * extra * ny
        vel[b][0] += inv[b] * extra * nx
        vel[b][1] += inv[b] * extra * ny
        lam[c] += extra
    return [(v[0], v[1]) for v in vel], lam
