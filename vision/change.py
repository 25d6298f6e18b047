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
   has sharp detail (the same detail a fraction of a pixel off). Where a shadow's edge or a
   reflection that went, followed only roughly, raises that measure over the whole board, the
   noise is measured again allowing for the glare undone on each square, and the lesser holds.

A square is changed when its difference stands far out of that noise. A glare spot that stays
where it was is in both pictures; one that moved, or a shadow's sharp edge, may make a square
look changed: the classifier then still finds the reference itself fits it best.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import cv2
import numpy as np

from vision.light import burnt
from vision.reading import CELLS, COLUMNS, ROWS
from vision.rectify import cells
from vision.tuning import TUNING

_T = TUNING.change
_PARTS = 2  # each square's light is measured on 2×2 parts of it: a light changing across a square
_LIGHT_PX = 4  # px per part at which a part's brightness and glare are told apart
_SHIFT = 1  # px (at 16 px per square, about 2 mm): how far a piece may have been nudged
_INSET = 2  # px of each square's edge left out: a neighbour's piece or its shadow may overhang


class Change(NamedTuple):
    """How a picture differs from the reference."""

    gain: np.ndarray  # H×W×3 float32: each channel now over the agreed picture: the change of light ...
    glare: np.ndarray  # H×W float32: ... and the white light added (negative: a glare that went)
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
    burnt: np.ndarray  # CELLS: the share of each square a glare burnt out (`light.burnt`)


def reference(picture: np.ndarray) -> Reference:
    """The agreed picture (from `rectify`) made ready to be compared with."""
    px = picture.shape[0] // ROWS
    before = cv2.GaussianBlur(picture.astype(np.float32), (0, 0), _T.smooth)
    reach = np.ones((2 * _SHIFT + 1, 2 * _SHIFT + 1), np.uint8)
    highest, lowest = cv2.dilate(before, reach), cv2.erode(before, reach)
    spread = highest - lowest
    return Reference(picture, _parts(picture), highest, lowest, _inner(_summed(spread * spread), px),
                     burnt(cells(picture, px)))


def _parts(image: np.ndarray) -> np.ndarray:
    size = (COLUMNS * _PARTS, ROWS * _PARTS)
    parts: np.ndarray = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32).reshape(-1, 3)
    return parts


@functools.cache
def _surface() -> np.ndarray:
    """The quadratic surface's terms at the middle of every part of a square."""
    x, y = _grid((ROWS * _PARTS, COLUMNS * _PARTS))
    return _basis(x.ravel(), y.ravel())


def light_change(top_down: np.ndarray, before: Reference) -> tuple[np.ndarray, np.ndarray]:
    """The change of light from the agreed picture to `top_down` (seen from above, the same size):
    now ≈ gain · agreed + glare, the gain of each channel (H×W×3) and the white glare (H×W) at
    every pixel.

    A lamp switched on or turned warmer, the exposure drifting: a gain per channel over the whole
    board, measured on parts of squares as log-gains and fitted with a quadratic surface by least
    squares, again and again leaving out the parts far from it (what changed on the board lies far
    off). A shadow falling across a few squares, a lamp's reflection coming or going, bend the
    light faster: on each part, its pixels tell a brightness and a white glare beyond the surface
    (dark pixels take a glare as much as bright ones, a brightness only in proportion), and each
    is followed by the median of the parts around (`follow`), which a shadow or a glare spot
    covering most of them moves and a few changed squares do not."""
    now, was = _parts(top_down), before.parts
    clipped = _brightest(np.maximum(top_down, before.picture)) >= TUNING.clipped
    clean = _parts(np.repeat(clipped[..., None], 3, axis=2).astype(np.float32))[:, 0] == 0
    usable = clean & np.all(was > _T.dark, axis=1)
    ratio = np.log(np.maximum(now, 1.0) / np.maximum(was, 1.0))
    basis = _surface()
    if np.count_nonzero(usable) < _T.parts_per_term * basis.shape[1]:
        # A lamp burnt out nearly all the board: the few parts left lie in a corner or along a row,
        # and a surface fitted on them bends far past them (gains of 0.01 over the burnt-out side
        # hid a dark tile put down there). Only the light's level is measured.
        basis = basis[:, :1]
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
    surface = np.exp(basis @ solution).astype(np.float32)  # parts × 3
    brightness, glare = _beyond(top_down, before.picture, surface)
    h, w = top_down.shape[:2]
    shape = (ROWS * _PARTS, COLUMNS * _PARTS)
    gain = (surface * (1 + brightness[:, None])).reshape(*shape, 3)
    return (cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR),
            cv2.resize(glare.reshape(shape).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR))


def _beyond(top_down: np.ndarray, picture: np.ndarray, surface: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Beyond the smooth surface (parts × 3), each part's extra brightness (a share) and white
    glare (grey levels), fitted on its pixels (`now - lit ≈ brightness · lit + glare`, lit the
    agreed picture under the surface's light) and followed from the parts around (`_local_median`).
    A part too even to tell the one from the other, or clipped, tells nothing."""
    side = _LIGHT_PX * _PARTS  # px per square at which the parts' pixels are taken
    size = (COLUMNS * side, ROWS * side)
    now, was = (cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32)
                for image in (top_down, picture))
    gain = cv2.resize(surface.reshape(ROWS * _PARTS, COLUMNS * _PARTS, 3), size, interpolation=cv2.INTER_NEAREST)
    rows, columns = ROWS * _PARTS, COLUMNS * _PARTS

    def parts(image: np.ndarray) -> np.ndarray:  # each part's pixels and channels in a row
        split = image.reshape(rows, _LIGHT_PX, columns, _LIGHT_PX, -1).transpose(0, 2, 1, 3, 4)
        return split.reshape(rows * columns, -1)

    lit = parts(was * gain)
    left = parts(now) - lit
    usable = parts(((now < TUNING.clipped - 10) & (was < TUNING.clipped - 10)).astype(np.float32))
    count = usable.sum(axis=1)
    sx, sxx = (usable * lit).sum(axis=1), (usable * lit * lit).sum(axis=1)
    sy, sxy = (usable * left).sum(axis=1), (usable * lit * left).sum(axis=1)
    det = count * sxx - sx * sx
    mean = sx / np.maximum(count, 1)
    # Told apart where the part's pixels spread over a tenth of their brightness at least.
    told = (count >= usable.shape[1] / 2) & (det > (0.1 * mean * count) ** 2)
    safe = np.where(told, det, 1.0)
    brightness = (count * sxy - sx * sy) / safe
    # Light cannot take away nearly all of a part's contrast (or turn it over): that is something
    # laid over it, a hand or a sleeve, and tells nothing of the light around.
    told &= 1 + brightness > _T.least_gain
    brightness = np.where(told, brightness, np.nan)
    glare = np.where(told, (sxx * sy - sx * sxy) / safe, np.nan)
    return (_local_median(brightness[:, None])[:, 0], _local_median(glare[:, None])[:, 0])


def _local_median(values: np.ndarray) -> np.ndarray:
    """Values of parts (parts × channels, NaN where unknown) followed locally: the median over the
    parts within `follow` of each (in a corner square, those of other squares: `_crowded`), where
    a third of them at least are known (else 0)."""
    reach = _T.follow
    grid = values.reshape(ROWS * _PARTS, COLUMNS * _PARTS, -1)
    ordered = np.sort(np.where(_crowded(reach), np.nan, _windows(grid, reach)), axis=-1)  # NaN sort last
    count = np.isfinite(ordered).sum(axis=-1, keepdims=True)
    low = np.take_along_axis(ordered, np.maximum(count - 1, 0) // 2, axis=-1)
    high = np.take_along_axis(ordered, count // 2, axis=-1)
    enough = count >= ordered.shape[-1] / 3
    followed: np.ndarray = np.where(enough, (low + high) / 2, 0.0).reshape(len(values), -1)
    return followed


def _windows(grid: np.ndarray, reach: int) -> np.ndarray:
    """The values within `reach` of each part of a parts grid (rows × columns × channels), the
    edge's own repeated past the board's edge: rows × columns × channels × window."""
    padded = np.pad(grid, ((reach, reach), (reach, reach), (0, 0)), mode="edge")
    side = 2 * reach + 1
    windows: np.ndarray = np.lib.stride_tricks.sliding_window_view(padded, (side, side), axis=(0, 1))
    return windows.reshape(*grid.shape, side * side)


@functools.cache
def _crowded(reach: int) -> np.ndarray:
    """Where a part's own square would make up more than a third of the parts within `reach` of
    it (rows × columns × 1 × window of parts, bool, as `_windows`): past the board's edge the
    edge's parts are repeated, which follows a light changing towards the edge, but in a corner
    square they are its own, and a piece put down there would pass for the light on it. There
    its own parts are left out."""
    rows, columns = ROWS * _PARTS, COLUMNS * _PARTS
    square = (np.arange(rows)[:, None] // _PARTS) * COLUMNS + np.arange(columns)[None, :] // _PARTS
    own = _windows(square[..., None], reach) == square[..., None, None]
    crowded: np.ndarray = own & (own.mean(axis=-1, keepdims=True) > 1 / 3)
    return crowded


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
    gain, glare = light_change(top_down, before)
    now = cv2.GaussianBlur((top_down.astype(np.float32) - glare[..., None]) / gain, (0, 0), _T.smooth)
    # Each pixel now is compared with the range the agreed picture shows within _SHIFT of it: a
    # piece nudged by a millimetre or two stays within it, a new one does not. A clipped channel
    # now says only "at least this bright" (a lamp switched on under a locked exposure); clipped
    # in the agreed picture too, it says nothing.
    exact = (top_down < TUNING.clipped).astype(np.float32)
    off = np.maximum(now - before.highest, 0) + np.maximum(before.lowest - now, 0) * exact
    unclipped = _brightest(np.minimum(top_down, before.picture)) < TUNING.clipped
    difference = _inner(_summed(off * off) * unclipped, px)
    # The noise to expect, measured on the squares least different: the sensor's, and more
    # where the square has sharp detail. Where a shadow's edge or a reflection that went lies
    # over part of the board, what is left of it where the glare was undone only roughly
    # raises that measure everywhere: measured again allowing for the glare undone on each
    # square, the noise expected is the lesser of the two (a square stands out of either).
    detail = np.stack([np.ones(CELLS), before.detail], axis=1)
    undone = np.concatenate([detail, _inner(glare * glare, px)[:, None]], axis=1)
    score = difference / np.minimum(_noise(difference, detail), _noise(difference, undone))
    # Squares a glare burnt out in the agreed picture differ by what is left of it undone, often
    # far more than any noise (a lamp switched off), or not at all where burnt out now too. More
    # of them than the fit leaves out (a quarter of the board) make the noise the rest is measured
    # against theirs: the rest is measured on its own too, where it is enough squares for the fit,
    # and stands out of either (never-tuned-on game 1173: a lamp's reflection over 103 squares
    # went, and a blue tile put down on the river at the other side, 4 times its noise so
    # measured, was never read; on its own, 2000 times).
    shown = before.burnt < TUNING.washed
    hidden = CELLS - np.count_nonzero(shown)
    if hidden > (1 - _T.typical) * CELLS and CELLS - hidden >= _T.parts_per_term * undone.shape[1]:
        rest, plain, glared = difference[shown], detail[shown], undone[shown]
        score[shown] = np.maximum(score[shown], rest / np.minimum(_noise(rest, plain), _noise(rest, glared)))
    return Change(gain, glare, score.astype(np.float32), score > _T.changed)


def _noise(difference: np.ndarray, design: np.ndarray) -> np.ndarray:
    """The noise each square's difference (CELLS) is expected to show, a sum of the terms of
    `design` (CELLS × terms) fitted on the squares least different."""
    typical = difference <= np.quantile(difference, _T.typical)
    for _ in range(3):
        terms = design[typical]
        fit = np.linalg.solve(terms.T @ terms + 1e-6 * np.eye(design.shape[1]), terms.T @ difference[typical])
        expected = design @ np.maximum(fit, 0.0) + _T.least_noise
        typical = difference / expected <= np.quantile(difference / expected, _T.typical)
    return expected
