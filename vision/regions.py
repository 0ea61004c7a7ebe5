"""Where the frame changed: rectangles on the working grid, and small geometry on them.

A frame where nothing moved reuses the previous frame's balls; a frame where a few balls moved
is searched only in rectangles around each change (three balls rolling apart give three small
rectangles, not one big one).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numba import njit

Rect = tuple[int, int, int, int]
"""(x0, y0, x1, y1) on the working grid, x1 and y1 exclusive."""


def changed_pixels(
    small: np.ndarray, last_small: np.ndarray, roi: np.ndarray, threshold: float
) -> np.ndarray:
    """Where the working-grid image changed since the last frame (uint8 0/255).

    Args:
        small: This frame on the working grid, BGR uint8.
        last_small: The previous frame there.
        roi: Where a change matters (uint8, non-zero inside).
        threshold: Sum over B, G, R of a pixel's change that makes it changed.
    """
    h, w = roi.shape[:2]
    flat = _changed(
        np.ascontiguousarray(small).reshape(-1),
        np.ascontiguousarray(last_small).reshape(-1),
        np.ascontiguousarray(roi).reshape(-1),
        # A whole-number sum exceeds the threshold when it exceeds its floor.
        np.int16(min(max(math.floor(threshold), -1), 255)),
    )
    return flat.reshape(h, w)


@njit(cache=True, nogil=True)
def _changed(
    small: np.ndarray, last: np.ndarray, roi: np.ndarray, threshold: np.int16
) -> np.ndarray:
    """`changed_pixels` over flat arrays, one pass without branches (so the compiler can
    vectorise it: twice as fast as absdiff, a channel sum and a compare in OpenCV). The sum
    saturates at 255 as OpenCV's 8-bit arithmetic did."""
    out = np.empty(len(roi), np.uint8)
    for i in range(len(roi)):
        j = 3 * i
        total = (
            abs(np.int16(small[j]) - np.int16(last[j]))
            + abs(np.int16(small[j + 1]) - np.int16(last[j + 1]))
            + abs(np.int16(small[j + 2]) - np.int16(last[j + 2]))
        )
        over = np.uint8(255) if min(total, np.int16(255)) > threshold else np.uint8(0)
        out[i] = over & (np.uint8(255) if roi[i] else np.uint8(0))
    return out


def changed_rects(changed: np.ndarray, radius_max: float) -> list[Rect]:
    """Rectangles around what changed, one per separate change.

    Args:
        changed: `changed_pixels`.
        radius_max: The largest ball radius on the working grid (rectangles are padded by it).

    Returns:
        Empty when nothing changed; the whole grid when most of it did.
    """
    gh, gw = changed.shape[:2]
    if cv2.countNonZero(changed) < 3:
        return []
    pad = math.ceil(2.5 * radius_max) + 4
    contours, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    rects = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        rects.append((max(x - pad, 0), max(y - pad, 0), min(x + w + pad, gw), min(y + h + pad, gh)))
    rects = merge(rects)
    if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in rects) > 0.6 * gw * gh:
        return [(0, 0, gw, gh)]  # most of the table changed: one search is cheaper
    return rects


def merge(rects: list[Rect]) -> list[Rect]:
    """Overlapping rectangles merged into their bounding rectangles, until none overlap."""
    if len(rects) < 2:
        return [tuple(int(v) for v in r) for r in rects]
    merged = _merge(np.array(rects, dtype=np.int64).reshape(-1, 4))
    return [tuple(r) for r in merged.tolist()]


@njit(cache=True, nogil=True)
def _merge(rects: np.ndarray) -> np.ndarray:
    """`merge` in a compiled loop, in the same order (each rectangle joins the first one kept
    so far that it overlaps; passes repeat until one joins none), so the same rectangles."""
    out = rects.copy()
    n = len(out)
    merged = True
    while merged:
        merged = False
        done = np.empty_like(out)
        m = 0
        for i in range(n):
            a = out[i]
            for k in range(m):
                b = done[k]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    done[k, 0] = min(a[0], b[0])
                    done[k, 1] = min(a[1], b[1])
                    done[k, 2] = max(a[2], b[2])
                    done[k, 3] = max(a[3], b[3])
                    merged = True
                    break
            else:
                done[m] = a
                m += 1
        out = done[:m].copy()
        n = m
    return out


def overlaps(a: Rect, b: Rect) -> bool:
    """Whether two rectangles share any pixel."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def on(mask: np.ndarray, p: np.ndarray) -> bool:
    """Whether the mask is set at the pixel nearest ``p`` (False outside it)."""
    ix, iy = round(float(p[0])), round(float(p[1]))
    return 0 <= iy < mask.shape[0] and 0 <= ix < mask.shape[1] and bool(mask[iy, ix])


def inside(p: np.ndarray, rect: Rect) -> bool:
    """Whether a point lies in a rectangle."""
    return rect[0] <= p[0] < rect[2] and rect[1] <= p[1] < rect[3]
