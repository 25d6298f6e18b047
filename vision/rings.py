"""A square summed up by a few numbers: the colour and texture of four rings about its centre.

Centre, middle, the rim of the inscribed circle and the corners: rings do not care how a piece is
turned, and they tell discs from squares (a leader leaves the board showing in the corners, a tile
does not). Each ring's mean colour, the spread of its brightness, and its hue apart from brightness.
"""

from __future__ import annotations

import itertools

import numpy as np

from vision.light import Light

_RINGS = (0.0, 0.17, 0.3, 0.42, 0.5)  # radii (squares) of centre, middle, rim; corners beyond 0.5
RINGS = len(_RINGS) - 1  # centre, middle, rim and corners
_INSET = 0.06  # square's edge kept out of the corner region: grid lines and small misalignment


def _region_weights(px: int) -> np.ndarray:
    """(regions, px, px) weights that sum to 1 per region."""
    centre = (np.arange(px) + 0.5) / px - 0.5
    y, x = np.meshgrid(centre, centre, indexing="ij")
    radius = np.hypot(x, y)
    inside = (np.abs(x) < 0.5 - _INSET) & (np.abs(y) < 0.5 - _INSET)
    masks = [(radius >= a) & (radius < b) for a, b in itertools.pairwise(_RINGS[:-1])]
    masks.append((radius >= _RINGS[-1]) & inside)
    weights = np.stack(masks).astype(np.float32)
    normalised: np.ndarray = weights / weights.sum(axis=(1, 2), keepdims=True)
    return normalised


_WEIGHTS: dict[int, np.ndarray] = {}


def weights(px: int) -> np.ndarray:
    """(regions, px, px): each ring's share of every pixel of a px-wide square, summing to 1 per ring."""
    if px not in _WEIGHTS:
        _WEIGHTS[px] = _region_weights(px)
    return _WEIGHTS[px]


def _channels(patches: np.ndarray) -> np.ndarray:
    """(n · 3, px²): each channel of each patch (n, px, px, 3) as a row."""
    n, px = len(patches), patches.shape[1]
    rows: np.ndarray = patches.reshape(n, px * px, 3).transpose(0, 2, 1).reshape(n * 3, px * px).astype(np.float32)
    return rows


def _ring_means(channels: np.ndarray, n: int, px: int) -> np.ndarray:
    """(n, regions, 3): the mean of each ring of each channel row (`_channels`)."""
    means: np.ndarray = (channels @ weights(px).reshape(-1, px * px).T).reshape(n, 3, -1).transpose(0, 2, 1)
    return means


def colours(patches: np.ndarray) -> np.ndarray:
    """(n, regions, 3): the mean colour of each ring of each patch (n, px, px, 3)."""
    return _ring_means(_channels(patches), len(patches), patches.shape[1])


def features(patches: np.ndarray, light: Light) -> np.ndarray:
    """(n, F) numbers per square patch (n, px, px, 3): per ring, mean B, G, R and the spread of
    brightness, with the change of light undone so they read as under the calibration light, and
    the share of B, G and R in the mean colour."""
    n, px = len(patches), patches.shape[1]
    channels = _channels(patches)
    means = _ring_means(channels, n, px)
    brightness = channels.reshape(n, 3, px * px).mean(axis=1)
    squares = (brightness * brightness) @ weights(px).reshape(-1, px * px).T  # (n, regions)
    spread = np.sqrt(np.maximum(squares - means.mean(axis=2) ** 2, 0.0)) / 255.0
    level = light.gain.mean(axis=1, keepdims=True)
    normalised = light.undo(means) / 255.0
    # Hue apart from brightness: what stays true where the light estimate is off (shadow edges).
    hue = normalised / np.maximum(normalised.sum(axis=2, keepdims=True), 1e-3)
    result: np.ndarray = np.concatenate(
        [normalised.reshape(len(patches), -1), spread / level, hue.reshape(len(patches), -1)], axis=1
    )
    return result
