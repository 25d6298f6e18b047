"""What changed on the board since the game and the players last agreed on it.

The reference is the picture of the board, seen from above in board coordinates, when they last
agreed (`Observer.agree`). A new still picture is compared with it square by square:

1. The light: a lamp switched on or turned warmer, a slow drift over the evening, a camera that
   exposes a little differently all change every channel smoothly over the board. The change is
   measured on the squares that did not change, each channel's gain a smooth surface over the
   board fitted with outliers left out (a square that changed is an outlier), and undone.
2. The difference left, square by square, with the picture shifted by up to a pixel each way (a
   piece nudged by a millimetre is no new piece), compared with what this very picture's noise
   leaves on the squares that did not change: sensor noise, and a little more where the square
   has sharp detail (the same detail a fraction of a pixel off).

A square is changed when its difference stands far out of that noise. A glare spot that stays
where it was is in both pictures; one that moved, or a shadow's sharp edge, may make a square
look changed: the classifier then still finds the reference itself fits it best.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import cv2
import numpy as np

from vision.reading import CELLS, COLUMNS, ROWS
from vision.tuning import TUNING

_T = TUNING.change
_PARTS = 2  # each square's light is measured on 2×2 parts of it: a light changing across a square
_SHIFT = 1  # px (at 16 px per square, about 2 mm): how far a piece may have been nudged
_INSET = 2  # px of each square's edge left out: a neighbour's piece or its shadow may overhang


class Change(NamedTuple):
    """How a picture differs from the reference."""

    gain: np.ndarray  # H×W×3 float32: each channel now over the reference, the smooth change of light
    score: np.ndarray  # CELLS: each square's difference, in units of the noise expected there
    changed: np.ndarray  # CELLS bool: the squares whose difference stands out of the noise


def _basis(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A smooth surface over the board: 1, x, y, xy, x², y² (x, y: -1..1 across the grid)."""
    return np.stack([np.ones_like(x), x, y, x * y, x * x, y * y], axis=-1)


def _grid(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = shape
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float32)
    return 2 * (x + 0.5) / cols - 1, 2 * (y + 0.5) / rows - 1


class Reference(NamedTuple):
    """The agreed picture, and what every comparison with it needs, worked out once."""

    picture: np.ndarray  # seen from above (uint8)
    parts: np.ndarray  # (ROWS·_PARTS·COLUMNS·_PARTS) × 3: the mean colour of each part of a square
    highest: np.ndarray  # H×W×3 float32: the brightest the picture shows within _SHIFT of each pixel
    lowest: np.ndarray  # ... and the darkest
    detail: np.ndarray  # CELLS: how much the picture varies within _SHIFT, on each square's inner part


def reference(picture: np.ndarray) -> Reference:
    """The agreed picture (from `rectify`) made ready to be compared with."""
    px = picture.shape[0] // ROWS
    before = cv2.GaussianBlur(picture.astype(np.float32), (0, 0), _T.smooth)
    reach = np.ones((2 * _SHIFT + 1, 2 * _SHIFT + 1), np.uint8)
    highest, lowest = cv2.dilate(before, reach), cv2.erode(before, reach)
    spread = highest - lowest
    return Reference(picture, _parts(picture), highest, lowest, _inner(_summed(spread * spread), px))


def _parts(image: np.ndarray) -> np.ndarray:
    size = (COLUMNS * _PARTS, ROWS * _PARTS)
    parts: np.ndarray = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32).reshape(-1, 3)
    return parts


@functools.cache
def _surface() -> np.ndarray:
    """The quadratic surface's terms at the middle of every part of a square."""
    x, y = _grid((ROWS * _PARTS, COLUMNS * _PARTS))
    return _basis(x.ravel(), y.ravel())


def light_change(top_down: np.ndarray, before: Reference) -> np.ndarray:
    """The smooth change of light from the agreed picture to `top_down` (seen from above, the
    same size): the gain of each channel at every pixel (H×W×3 float32).

    Measured on parts of squares as a log-gain per channel, fitted with a quadratic surface
    by least squares, again and again leaving out the parts far from it (robust spread of the
    log-gains): what changed on the board lies far off, what only the light changed lies on it."""
    now = _parts(top_down)
    clipped = _brightest(np.maximum(top_down, before.picture)) >= TUNING.clipped
    clean = _parts(np.repeat(clipped[..., None], 3, axis=2).astype(np.float32))[:, 0] == 0
    usable = clean & np.all(before.parts > _T.dark, axis=1)
    ratio = np.log(np.maximum(now, 1.0) / np.maximum(before.parts, 1.0))
    basis = _surface()
    inliers = usable.copy()
    solution = np.zeros((basis.shape[1], 3), np.float32)
    for _ in range(4):
        if np.count_nonzero(inliers) < 2 * basis.shape[1]:
            break  # hardly anything left that did not change: keep the last surface (or none)
        terms = basis[inliers]
        solution = np.linalg.solve(terms.T @ terms + 1e-6 * np.eye(len(solution)), terms.T @ ratio[inliers])
        off = np.linalg.norm(ratio - basis @ solution, axis=1)
        spread = max(1.4826 * float(np.median(off[inliers])), _T.least_spread)
        inliers = usable & (off < _T.spread * spread)
    h, w = top_down.shape[:2]
    coarse = np.exp(basis @ solution).astype(np.float32).reshape(ROWS * _PARTS, COLUMNS * _PARTS, 3)
    gain: np.ndarray = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR)
    return gain


def _inner(per_pixel: np.ndarray, px: int) -> np.ndarray:
    """The mean of a per-pixel value (H×W float32) over each square's inner part: CELLS."""
    kept = per_pixel * _inner_mask(px)
    means = cv2.resize(kept, (COLUMNS, ROWS), interpolation=cv2.INTER_AREA)
    result: np.ndarray = means.reshape(CELLS) * (px * px / (px - 2 * _INSET) ** 2)
    return result


@functools.cache
def _inner_mask(px: int) -> np.ndarray:
    """1 on each square's inner part, 0 on its edge (H×W float32)."""
    square = np.zeros((px, px), np.float32)
    square[_INSET : px - _INSET, _INSET : px - _INSET] = 1
    mask: np.ndarray = np.tile(square, (ROWS, COLUMNS))
    return mask


def _brightest(image: np.ndarray) -> np.ndarray:
    """The brightest channel of each pixel."""
    brightest: np.ndarray = np.maximum(np.maximum(image[..., 0], image[..., 1]), image[..., 2])
    return brightest


def _summed(image: np.ndarray) -> np.ndarray:
    """The three channels added pixel by pixel (far quicker than numpy's sum along a short axis)."""
    total: np.ndarray = image[..., 0] + image[..., 1] + image[..., 2]
    return total


def compare(top_down: np.ndarray, before: Reference) -> Change:
    """The picture now (from `rectify`) against the agreed one: see `Change`."""
    px = top_down.shape[0] // ROWS
    gain = light_change(top_down, before)
    now = cv2.GaussianBlur(top_down.astype(np.float32) / gain, (0, 0), _T.smooth)
    # Each pixel now is compared with the range the agreed picture shows within _SHIFT of it: a
    # piece nudged by a millimetre or two stays within it, a new one does not. A clipped channel
    # now says only "at least this bright" (a lamp switched on under a locked exposure); clipped
    # in the agreed picture too, it says nothing.
    exact = (top_down < TUNING.clipped).astype(np.float32)
    off = np.maximum(now - before.highest, 0) + np.maximum(before.lowest - now, 0) * exact
    unclipped = _brightest(np.minimum(top_down, before.picture)) < TUNING.clipped
    difference = _inner(_summed(off * off) * unclipped, px)
    # The noise to expect, measured on the squares least different: the sensor's, and more
    # where the square has sharp detail.
    design = np.stack([np.ones(CELLS), before.detail], axis=1)
    score = difference
    typical = difference <= np.quantile(difference, _T.typical)
    for _ in range(3):
        terms = design[typical]
        fit = np.linalg.solve(terms.T @ terms + 1e-6 * np.eye(2), terms.T @ difference[typical])
        score = difference / (design @ np.maximum(fit, 0.0) + _T.least_noise)
        typical = score <= np.quantile(score, _T.typical)
    return Change(gain, score.astype(np.float32), score > _T.changed)
