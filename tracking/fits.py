"""Least-squares lines through a few samples: the segmenter's velocity fits, where numpy's general
fitting costs more than the fit."""

from __future__ import annotations

import math

import numpy as np


def fit_slope(t: np.ndarray, y: np.ndarray, sigma: float) -> tuple[float, float]:
    """Least-squares slope of y(t) and its standard deviation for noise ``sigma``."""
    return fit_line(t, y, sigma)[:2]


def fit_line(t: np.ndarray, y: np.ndarray, sigma: float) -> tuple[float, float, float, float]:
    """Least-squares line through y(t): its slope, the slope's standard deviation for noise
    ``sigma``, and the point it passes through (the means of t and y)."""
    # np.add.reduce / n is ndarray.mean without its overhead, which counts on a few samples.
    t_mean, y_mean = np.add.reduce(t) / len(t), np.add.reduce(y) / len(y)
    tc = t - t_mean
    ss = float(tc @ tc)
    if ss <= 0:
        return 0.0, math.inf, t_mean, y_mean
    return float(tc @ (y - y_mean)) / ss, sigma / math.sqrt(ss), t_mean, y_mean
