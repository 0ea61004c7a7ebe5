"""Small plane-geometry helpers in the table frame (pure Python, millimetres)."""

from __future__ import annotations

import math

from rules.table import Point


def sub(a: Point, b: Point) -> Point:
    """a - b."""
    return (a[0] - b[0], a[1] - b[1])


def dot(a: Point, b: Point) -> float:
    """Dot product."""
    return a[0] * b[0] + a[1] * b[1]


def cross(a: Point, b: Point) -> float:
    """z of the cross product; > 0 when b is counter-clockwise of a."""
    return a[0] * b[1] - a[1] * b[0]


def unit(v: Point) -> Point:
    """v scaled to length 1."""
    n = math.hypot(v[0], v[1])
    return (v[0] / n, v[1] / n)


def distance_to_segment(p: Point, a: Point, b: Point) -> float:
    """Shortest distance from p to the segment a-b."""
    ab = sub(b, a)
    length2 = dot(ab, ab)
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, dot(sub(p, a), ab) / length2))
    closest = (a[0] + t * ab[0], a[1] + t * ab[1])
    return math.hypot(p[0] - closest[0], p[1] - closest[1])


def offset_convex_polygon(vertices: tuple[Point, ...], margin: float) -> tuple[Point, ...]:
    """Grow a convex polygon outward by ``margin`` (each edge moves out by it).

    Each vertex moves along its outward bisector by margin / sin(half its interior angle).
    """
    n = len(vertices)
    cx = sum(v[0] for v in vertices) / n
    cy = sum(v[1] for v in vertices) / n
    grown = []
    for i, v in enumerate(vertices):
        to_prev = unit(sub(vertices[i - 1], v))
        to_next = unit(sub(vertices[(i + 1) % n], v))
        half_angle = math.acos(max(-1.0, min(1.0, dot(to_prev, to_next)))) / 2
        inward = unit((to_prev[0] + to_next[0], to_prev[1] + to_next[1]))
        if dot(inward, sub((cx, cy), v)) < 0:
            inward = (-inward[0], -inward[1])
        step = margin / math.sin(half_angle)
        grown.append((v[0] - inward[0] * step, v[1] - inward[1] * step))
    return tuple(grown)
