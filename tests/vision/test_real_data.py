"""The detector on real labelled footage; skipped when ../shared/data is absent."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench import _vision_real as real
from vision.detector import BallDetector

CLIP = real.DATA / "broadcast-8ball" / "game1_clip1"

pytestmark = pytest.mark.skipif(not CLIP.exists(), reason="real data not present")


def test_the_overhead_broadcast_frame_has_its_balls_found() -> None:
    image = cv2.imread(str(CLIP / "frames" / "frame_first.png"))
    cal = real._calibrate(image, CLIP.name)
    assert cal is not None, "the table finder should calibrate the true overhead view"
    d = BallDetector(cal).detect(image)
    labels = np.loadtxt(CLIP / "bounding_boxes" / "frame_first_bbox.txt", ndmin=2)
    centres = labels[:, :2] + labels[:, 2:4] / 2
    matched = real._match(centres, labels[:, 2:4].max(axis=1), real._pixels(cal, d))
    recall = np.mean(np.array(matched) >= 0)
    assert recall >= 0.9
