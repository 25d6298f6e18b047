"""What each square shows, with a confidence, from the top-down image.

Every square is summed up by a few numbers: the mean colour and the texture of four rings around
its centre (centre, middle, rim of the inscribed circle, corners). Rings do not care how a piece is
turned, and they tell discs from squares: a leader leaves the board showing in the corners, a tile
does not. The numbers are compared with references learnt at calibration from pieces whose identity
the player told us; the nearest reference gives the class, the gap to the nearest reference of
another class gives the confidence, and a square unlike every reference (a hand, a glare spot) has
a low one. Low confidence is reported as `CellClass.UNKNOWN`, never rounded to a guess.

Light changes between calibration and play (a lamp switched on, clouds, the camera's exposure, a
glare spot, a shadow's edge) are undone first, pixel by pixel: the set-up board was photographed at
calibration, so the squares that still show its printed pattern tell how the light has changed
around every piece (`light`, `undo_light`). Such a square holds what it held at set-up. Where a
glare has clipped a piece's colours, nothing is guessed.
"""

from __future__ import annotations

import base64
import functools
import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import cv2
import numpy as np

from vision import picture
from vision.reading import CELLS, COLUMNS, ROWS, CellClass, CellReading
from vision.rectify import PX_PER_SQUARE, cells, square_transform

MIN_CONFIDENCE = 0.5
_RINGS = (0.0, 0.17, 0.3, 0.42, 0.5)  # radii (squares) of centre, middle, rim; corners beyond 0.5
_INSET = 0.06  # square's edge kept out of the corner region: grid lines and small misalignment
_SCALE_FLOOR = 0.02  # smallest spread of a feature, so one sharp reference cannot dominate


@dataclass(frozen=True, slots=True)
class Piece:
    """What a square holds, as the player tells it at calibration."""

    cls: CellClass
    dynasty: str | None = None
    monument: tuple[str, str] | None = None


class Known(Protocol):
    """What the player told us a square holds (vision.sim.synthetic.CellTruth fits)."""

    @property
    def cls(self) -> CellClass: ...
    @property
    def dynasty(self) -> str | None: ...
    @property
    def monument(self) -> tuple[str, str] | None: ...


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


def _weights(px: int) -> np.ndarray:
    if px not in _WEIGHTS:
        _WEIGHTS[px] = _region_weights(px)
    return _WEIGHTS[px]


def cell_colours(top_down: np.ndarray, px: int = PX_PER_SQUARE) -> np.ndarray:
    """The mean colour of each square (CELLS × 3, float32): an area resize is exactly that."""
    means = cv2.resize(top_down, (COLUMNS, ROWS), interpolation=cv2.INTER_AREA)
    result: np.ndarray = means.reshape(CELLS, 3).astype(np.float32)
    return result


def features(patches: np.ndarray, light: Light) -> np.ndarray:
    """(n, F) numbers per square patch (n, px, px, 3): per ring, mean B, G, R and the spread of
    brightness, with the change of light undone so they read as under the calibration light, and
    the share of B, G and R in the mean colour."""
    n, px = len(patches), patches.shape[1]
    channels = patches.reshape(n, px * px, 3).transpose(0, 2, 1).reshape(n * 3, px * px).astype(np.float32)
    weights = _weights(px).reshape(-1, px * px).T  # (px², regions)
    means = (channels @ weights).reshape(n, 3, -1).transpose(0, 2, 1)  # (n, regions, 3)
    brightness = channels.reshape(n, 3, px * px).mean(axis=1)
    squares = (brightness * brightness) @ weights  # (n, regions)
    spread = np.sqrt(np.maximum(squares - means.mean(axis=2) ** 2, 0.0)) / 255.0
    level = light.gain.mean(axis=1, keepdims=True)
    normalised = light.undo(means) / 255.0
    # Hue apart from brightness: what stays true where the light estimate is off (shadow edges).
    hue = normalised / np.maximum(normalised.sum(axis=2, keepdims=True), 1e-3)
    result: np.ndarray = np.concatenate(
        [normalised.reshape(len(patches), -1), spread / level, hue.reshape(len(patches), -1)], axis=1
    )
    return result


# --- light --------------------------------------------------------------------------------------


def _around(grid: np.ndarray, reach: int) -> np.ndarray:
    """The values of the squares around each square, itself left out: (neighbours, CELLS, ...)."""
    padded = np.pad(grid, ((reach, reach), (reach, reach), (0, 0)), mode="edge")
    shifts = [
        padded[reach + dy : reach + dy + ROWS, reach + dx : reach + dx + COLUMNS].reshape(CELLS, -1)
        for dy in range(-reach, reach + 1)
        for dx in range(-reach, reach + 1)
        if dx or dy
    ]
    return np.stack(shifts)




@dataclass(frozen=True)
class Light:
    """How the light on each square differs from calibration: colour = gain · before + glare."""

    gain: np.ndarray  # squares × 3
    glare: np.ndarray  # squares × 1, grey levels of white light added (a reflection, a bright spot)
    bare: np.ndarray | None = None  # squares: where the bare board showed, so the light could be measured
    misfit: np.ndarray | None = None  # squares: how far each is from the bare board under any smooth light

    @classmethod
    def unchanged(cls, squares: int = CELLS) -> Light:
        return cls(np.ones((squares, 3), np.float32), np.zeros((squares, 1), np.float32))

    @property
    def tint(self) -> np.ndarray:
        """The lamp's colour: the share of each channel in the gain, the same on every square."""
        tint: np.ndarray = (self.gain / self.gain.mean(axis=1, keepdims=True)).mean(axis=0)
        return tint

    def undo(self, colours: np.ndarray) -> np.ndarray:
        """Colours (one row per square of this light, × ... × 3, 0..255) as at calibration."""
        shape = (len(self.gain),) + (1,) * (colours.ndim - 2) + (-1,)
        undone: np.ndarray = (colours - self.glare.reshape(shape)) / self.gain.reshape(shape)
        return undone


_LAMP_TOLERANCE = 0.04  # how far (in chroma) a square's change of colour may be from the lamp's


def _lamp(ratios: np.ndarray) -> np.ndarray:
    """The change of colour and brightness the lamp brought, from each square's colour now over
    its colour on the empty board. Empty squares all change alike; pieces each change their own
    way. On a crowded board most squares hold pieces, so a median over all of them follows the
    pieces: take instead the largest group of squares that changed alike."""
    chroma = (ratios / np.maximum(ratios.mean(axis=1, keepdims=True), 1e-6)).astype(np.float32)
    apart = np.abs(chroma[:, None, 0] - chroma[None, :, 0])
    for channel in (1, 2):  # one channel at a time: a third of the memory traffic of all at once
        np.maximum(apart, np.abs(chroma[:, None, channel] - chroma[None, :, channel]), out=apart)
    alike = apart < _LAMP_TOLERANCE
    group = alike[int(alike.sum(axis=1).argmax())]
    lamp: np.ndarray = np.median(ratios[group], axis=0)
    return lamp


def light(top_down: np.ndarray, board: np.ndarray, known: np.ndarray | None = None) -> Light:
    """How the light changed since calibration at every square, and which squares show the bare
    board (`board`: the set-up board seen from above, as `top_down` is now).

    The lamp's colour is the same all over the board. A square is bare when it is its set-up
    self under a light changing smoothly across it (`_smooth_fit`): a piece has its own pattern,
    even one in the board's colours (a blue tile on the river). Each such square is explained as
    its empty self under some brightness plus some white glare; the light on a square is read
    from the squares around it that agree — never from the square itself, so a dark piece cannot
    pass for a shadow, while a shadow or a glare spot over many squares is followed closely. A
    square whose pattern fits at a brightness near its neighbours' is bare too, whatever its
    glare: the heart of a glare spot, the edge of a shadow.

    known: the squares known to show their set-up selves' bare board (the game and the players
    agreed on it): the light is measured on them, whatever their pattern looks like.
    """
    colours, empty = cell_colours(top_down), cell_colours(board)
    ratios = colours / np.maximum(empty, 1.0)
    overall = _lamp(ratios) if known is None or not known.any() else np.median(ratios[known], axis=0)
    tint = overall / overall.mean()
    fit, misfit = _smooth_fit(top_down, board, tint)
    shape = empty * tint  # what an empty square looks like in the lamp's colour, before brightness
    # Least squares, per square: colours ≈ a · shape + b, for a brightness a and a glare b.
    see, se, sec, sc = (shape * shape).sum(1), shape.sum(1), (shape * colours).sum(1), colours.sum(1)
    det = np.maximum(3 * see - se * se, 1e-3)
    a = (3 * sec - se * sc) / det
    b = (see * sc - se * sec) / det
    level = float(overall.mean())
    plausible = (a > 0.3 * level) & (a < 3 * level) & (b > -12) & (b < 160)
    empty_like = plausible & (misfit < _BARE_MISFIT[1] if known is None else known)
    fitted = np.stack([a, b], axis=1)
    reference = np.median(_around(fitted.reshape(ROWS, COLUMNS, 2), 1), axis=0)
    fallback = np.array([level, 0.0], np.float32)
    for tolerance in (0.25, 0.12):
        close = (np.abs(a / np.maximum(reference[:, 0], 1e-3) - 1) < tolerance) & (
            np.abs(b - reference[:, 1]) < 8 + tolerance * 100
        )
        agree = (empty_like & close)[:, None].astype(np.float32)
        kept = np.concatenate([fitted * agree, agree], axis=1).reshape(ROWS, COLUMNS, 3)
        around = _around(kept, 2).sum(axis=0)
        counts = around[:, 2:]
        reference = np.where(counts > 0, around[:, :2] / np.maximum(counts, 1), fallback)
    share = fit[:, 0] / np.maximum(reference[:, 0], 1e-3)
    glowing = (misfit < _BARE_MISFIT[0]) & (share > _BARE_GAIN[0]) & (share < _BARE_GAIN[1]) & (fit[:, 3] > -12)
    gain = (reference[:, :1] * tint[None, :]).astype(np.float32)
    return Light(
        gain=np.maximum(gain, 0.05),
        glare=np.maximum(reference[:, 1:], 0.0).astype(np.float32),
        bare=(agree[:, 0] > 0) | glowing if known is None else known & plausible,
        misfit=misfit,
    )


_LIGHT_PX = 8  # px per square at which the light is worked out: it changes smoothly within a square
_CLIPPED_SMALL = 245  # a channel this bright at _LIGHT_PX is mostly clipped pixels
# rms misfit, as a share of the brightness, of a bare square under smooth light: any square, and
# one whose brightness and glare also agree with its neighbours'.
_BARE_MISFIT = (0.025, 0.035)
_BARE_GAIN = (0.55, 1.6)  # a bare square's brightness, as a share of what the squares around suggest


@functools.cache
def _light_design() -> np.ndarray:
    """Where each pixel of a square's inner part lies in the square, -0.5..0.5, as (pixels, 2),
    for fitting a light that changes linearly across a square."""
    centre = ((np.arange(_LIGHT_PX) + 0.5) / _LIGHT_PX - 0.5)[_EDGE_PX:-_EDGE_PX]
    y, x = np.meshgrid(centre, centre, indexing="ij")
    return np.stack([x.ravel(), y.ravel()], axis=1).astype(np.float32)


def _small(image: np.ndarray) -> np.ndarray:
    """A top-down image at _LIGHT_PX per square (float32)."""
    small: np.ndarray = cv2.resize(image, (COLUMNS * _LIGHT_PX, ROWS * _LIGHT_PX), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32)


def _smooth_fit(top_down: np.ndarray, board: np.ndarray, tint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each square explained as its set-up self (in the lamp's colour) under a brightness and a
    white glare that each change linearly across the square, by least squares over the square's
    inner part: the fit (CELLS × 6: brightness at the centre and its two slopes, glare at the
    centre and its two slopes) and what it leaves unexplained (rms, as a share of the square's
    brightness)."""
    px = _LIGHT_PX
    n, edge = CELLS, _EDGE_PX
    inner = px - 2 * edge  # a neighbour's piece, or its shadow, may overhang the square's edge
    seen = cells(_small(top_down), px)[:, edge:-edge, edge:-edge].reshape(n, inner * inner, 3)
    shape = cells(_small(board) * tint, px)[:, edge:-edge, edge:-edge].reshape(n, inner * inner, 3)
    xy = np.broadcast_to(_light_design()[None, :, None, :], (n, inner * inner, 3, 2))
    design = np.concatenate(
        [shape[..., None], shape[..., None] * xy, np.ones((n, inner * inner, 3, 1), np.float32), xy], axis=3
    ).reshape(n, inner * inner * 3, 6)
    fit, count, misfit = _least_squares(design, seen.reshape(n, -1, 1))
    # Too little left unclipped to tell the board's pattern: not known to be bare.
    misfit = np.where(count < 0.3 * inner * inner * 3, np.inf, misfit).astype(np.float32)
    return fit[..., 0], misfit


def _least_squares(design: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per patch, target ≈ design @ fit by least squares over the values not clipped (a clipped
    channel says only "at least this bright"): the fit, how many values it used, and what it
    leaves unexplained (rms, as a share of the patch's brightness)."""
    usable = (target < _CLIPPED_SMALL).astype(np.float32)
    design, target = design * usable, target * usable
    normal = design.transpose(0, 2, 1) @ design + np.eye(design.shape[-1], dtype=np.float32) * 1e-3
    fit: np.ndarray = np.linalg.solve(normal, design.transpose(0, 2, 1) @ target)
    count: np.ndarray = usable.sum(axis=(1, 2))
    residual = np.sqrt(((design @ fit - target) ** 2).sum(axis=(1, 2)) / np.maximum(count, 1.0))
    misfit: np.ndarray = residual / np.maximum(target.sum(axis=(1, 2)) / np.maximum(count, 1.0), 1.0)
    return fit, count, misfit


_NEAR = 0.35  # squares: the light is followed this closely where the bare board shows around a piece
_FAR_LIGHT = 1.5  # squares: ... and this loosely on a crowded part of the board
_PRIOR = 0.03  # how much the looser estimate of the light weighs, as a share of a bare neighbourhood
_EDGE = 0.15  # squares: a bare square's edge is left out (a neighbour's piece may overhang it)
_EDGE_PX = round(_EDGE * _LIGHT_PX)


def _channels(combine: np.ufunc, image: np.ndarray) -> np.ndarray:
    """The three channels of an image combined pixel by pixel (np.add, np.maximum): far quicker
    than a reduction along numpy's short last axis."""
    result: np.ndarray = combine(combine(image[..., 0], image[..., 1]), image[..., 2])
    return result


def _follow(
    seen: np.ndarray,
    shape: np.ndarray,
    weight: np.ndarray,
    usable: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    floor: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Brightness a and glare b at every pixel: seen ≈ a · shape + b fitted by least squares over
    the bare pixels around (weight; usable: the channels not clipped), closer ones counting more,
    first loosely then closely. Held
    towards the looser estimate as if it were _PRIOR of a bare neighbourhood, so that where bare
    board is scarce, or all one colour, that estimate stands. The glare never goes below floor."""
    # What a least-squares fit of seen ≈ a · shape + b needs, summed over the usable channels.
    terms = (usable, usable * shape, usable * shape * shape, usable * shape * seen, usable * seen)
    sums = cv2.merge([weight * _channels(np.add, term) for term in terms])
    typical = float((shape * shape).mean())  # puts the prior on a and on b on the same footing
    for reach in (_FAR_LIGHT, _NEAR):
        n, s1, ss, so, o1 = cv2.split(cv2.GaussianBlur(sums, (0, 0), reach * _LIGHT_PX))
        pa, pb = _PRIOR * typical, _PRIOR
        saa, sab, sbb = ss + pa, s1, n + 3 * pb
        ra, rb = so + pa * a, o1 + 3 * pb * b
        det = saa * sbb - sab * sab
        fit_a, fit_b = (ra * sbb - rb * sab) / det, (saa * rb - sab * ra) / det
        # Light only ever adds: a fit wanting less than none is brightness alone.
        dark = fit_b < floor
        a = np.where(dark, (ra - sab * floor) / saa, fit_a)
        b = np.where(dark, floor, fit_b)
    return a, b


_SPOT_FLOOR = 8.0  # grey levels of glare below which a pixel tells nothing of a glare spot's shape
_SPOT_PEAK = 25.0  # grey levels at its heart below which a glare spot is not worth modelling
_SPOT_EVIDENCE = 1.0  # squares' worth of bare board under a glare that a spot's shape is read from
_QUARTER = _LIGHT_PX // 2


@functools.cache
def _quarter_design() -> np.ndarray:
    """Where each pixel of a quarter of a square lies across it, -0.5..0.5, as (pixels, 2)."""
    centre = (np.arange(_QUARTER) + 0.5) / _QUARTER - 0.5
    y, x = np.meshgrid(centre, centre, indexing="ij")
    return np.stack([x.ravel(), y.ravel()], axis=1).astype(np.float32)


def _glowing_quarters(seen: np.ndarray, shape: np.ndarray, brightness: np.ndarray) -> np.ndarray:
    """Pixels (at _LIGHT_PX) of the quarters of squares that show the bare board under a glare:
    each quarter its set-up self (`shape`) at a brightness near the one worked out for its
    square, plus a glare changing linearly across the quarter. Beside a small glare spot no whole
    square fits a linear glare, but their quarters do, and show the spot's shape."""
    q, n = _QUARTER, CELLS * 4

    def quarters(image: np.ndarray) -> np.ndarray:
        return image.reshape(ROWS * 2, q, COLUMNS * 2, q, 3).transpose(0, 2, 1, 3, 4).reshape(n, q * q, 3)

    looked, bare = quarters(seen), quarters(shape)
    xy = np.broadcast_to(_quarter_design()[None, :, None, :], (n, q * q, 3, 2))
    design = np.concatenate([bare[..., None], np.ones((n, q * q, 3, 1), np.float32), xy], axis=3).reshape(n, -1, 4)
    fit, count, misfit = _least_squares(design, looked.reshape(n, -1, 1))
    share = fit[:, 0, 0] / np.maximum(np.repeat(np.repeat(brightness.reshape(ROWS, COLUMNS), 2, 0), 2, 1).ravel(), 1e-3)
    glowing = (
        (misfit < _BARE_MISFIT[0])
        & (share > _BARE_GAIN[0])
        & (share < _BARE_GAIN[1])
        & (fit[:, 1, 0] > _SPOT_FLOOR)
        & (count > 0.7 * q * q * 3)
    )
    return np.kron(glowing.reshape(ROWS * 2, COLUMNS * 2).astype(np.float32), np.ones((q, q), np.float32))


def _glare_spot(glare: np.ndarray, weight: np.ndarray) -> np.ndarray | None:
    """The glare of a lamp's reflection as one round spot, brightest in the middle and fading
    evenly (a Gaussian: its logarithm is a quadratic), fitted to the glare on the bare board;
    None when there is no such spot."""
    px = _LIGHT_PX
    where = (weight > 0.5) & (glare > _SPOT_FLOOR)
    if np.count_nonzero(where) < _SPOT_EVIDENCE * px * px:
        return None
    rows, cols = np.indices(glare.shape, dtype=np.float32)
    x, y = (cols + 0.5) / px, (rows + 0.5) / px  # in squares
    basis = np.stack([np.ones_like(x), x, y, x * x + y * y], axis=-1)
    level = glare[where]
    root = np.sqrt(level)[:, None]  # brighter pixels tell the shape more surely
    coef, *_ = np.linalg.lstsq(basis[where] * root, np.log(level)[:, None] * root[:, 0:1], rcond=None)
    if coef[3, 0] > -0.02:  # not a spot that fades out within the board
        return None
    spot: np.ndarray = np.exp(np.minimum(basis @ coef[:, 0], np.log(1000.0))).astype(np.float32)
    if spot.max() < _SPOT_PEAK or np.median(np.abs(spot[where] - level) / level) > 0.35:
        return None
    return spot


class Undone(NamedTuple):
    """The top-down image under the calibration light, and the light that was undone, pixel by pixel."""

    image: np.ndarray  # float32, as top_down: each pixel as the calibration light showed it
    glare: np.ndarray  # H×W: grey levels of white light added
    brightness: np.ndarray  # H×W: the light's strength; times Light.tint, the gain of each channel


def undo_light(top_down: np.ndarray, board: np.ndarray, lit: Light) -> Undone:
    """The top-down image as it would look under the calibration light, pixel by pixel.

    A glare spot or a shadow's edge changes the light within one square, which one number per
    square cannot undo. The bare board shows the light directly: on the bare squares (`light`)
    every pixel is its calibration self (`board`, the set-up picture) under some brightness in the
    lamp's colour plus some white glare. Around every pixel these are fitted by least squares,
    weighting the bare pixels by their distance, so the light on a piece is read from the board
    just beside it; where no bare board is near, from further off; failing that, the square's own
    estimate. A glare spot is followed around its own shape (`_glare_spot`). Returns that image
    (float32, same shape as top_down) with the brightness and glare undone at every pixel.
    """
    px = _LIGHT_PX
    size = (COLUMNS * px, ROWS * px)
    seen, shape = _small(top_down), _small(board) * lit.tint
    bare = lit.bare if lit.bare is not None else np.zeros(CELLS, bool)
    inner = np.zeros((px, px), np.float32)
    inner[_EDGE_PX:-_EDGE_PX, _EDGE_PX:-_EDGE_PX] = 1.0
    weight = np.kron(bare.reshape(ROWS, COLUMNS).astype(np.float32), inner)
    weight = np.maximum(weight, _glowing_quarters(seen, shape, lit.gain.mean(axis=1)))
    # The square's own estimate, spread smoothly over the picture, for where no bare board is near.
    per_square = np.concatenate([lit.gain.mean(axis=1, keepdims=True), lit.glare], axis=1).reshape(ROWS, COLUMNS, 2)
    a0, b0 = cv2.split(cv2.resize(per_square, size, interpolation=cv2.INTER_LINEAR))
    # A clipped channel says only "at least this bright": it is left out of every fit.
    usable = (seen < _CLIPPED_SMALL).astype(np.float32)
    a, b = _follow(seen, shape, weight, usable, a0, b0, np.zeros_like(b0))
    # The glare on each bare pixel itself, not smoothed: what a spot's heart looks like.
    glare = _channels(np.add, usable * (seen - a[..., None] * shape))
    count = _channels(np.add, usable)
    spot = _glare_spot(glare / np.maximum(count, 1), weight * (count > 0))
    if spot is not None:
        # A glare spot peaks where a piece may hide its heart, which the board around it cannot
        # show: follow the board's light around the spot's own shape, not a flat guess.
        beside = seen - spot[..., None]
        # What the spot leaves is judged clipped or not on its own (on the bench this reads
        # better than the raw picture's clipping: 0.28 against 0.32 % of squares wrong).
        unclipped = (beside < _CLIPPED_SMALL).astype(np.float32)
        a, rest = _follow(beside, shape, weight, unclipped, a, np.zeros_like(spot), -spot)
        b = rest + spot
    full = (top_down.shape[1], top_down.shape[0])
    a, b = (cv2.resize(plane.astype(np.float32), full, interpolation=cv2.INTER_LINEAR) for plane in (a, b))
    seen = top_down.astype(np.float32)
    a = np.maximum(a, 0.05)
    undone: np.ndarray = (seen - b[..., None]) / (a[..., None] * lit.tint)
    return Undone(undone, b, a)


# --- references ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class References:
    """What the squares and pieces looked like at calibration."""

    board: np.ndarray  # the set-up board seen from above (uint8, PX_PER_SQUARE per square): the bare board's look
    prototypes: np.ndarray  # K × F: features of every example
    classes: tuple[CellClass, ...]  # K
    dynasties: tuple[str | None, ...]  # K
    monuments: tuple[tuple[str, str] | None, ...]  # K
    scale: np.ndarray  # F: the usual spread of each feature among patches of one square
    setup: tuple[CellClass, ...]  # what each square held at set-up, when `board` was seen
    looks: np.ndarray  # K × px × px × 3 (uint8): every example's picture under the calibration light
    dynasty_signatures: np.ndarray = field(default_factory=lambda: np.zeros((0, _SIGNATURE), np.float32))
    dynasty_keys: tuple[tuple[CellClass, str], ...] = ()  # (leader class, dynasty) of each signature

    def __post_init__(self) -> None:
        labels = [c.value for c in self.classes]
        if labels != sorted(labels):
            raise ValueError("examples must be sorted by class")

    @functools.cached_property
    def empty(self) -> np.ndarray:
        """CELLS × 3: each square's mean colour on the set-up board."""
        return cell_colours(self.board)

    @functools.cached_property
    def coarse_looks(self) -> np.ndarray:
        """Every example's picture at the second look's size (K × LOOK_PX² · 3, float32)."""
        return _coarse(self.looks)

    @functools.cached_property
    def leader_colours(self) -> dict[CellClass, np.ndarray]:
        """The middle colour (BGR) of each leader colour's examples, the median over them."""
        colours = {}
        for cls in _LEADERS:
            rows = [i for i, c in enumerate(self.classes) if c is cls]
            if rows:
                looks = self.looks[rows][:, _FIGURE, _FIGURE].reshape(len(rows), -1, 3).astype(np.float32)
                colours[cls] = np.median(looks.mean(axis=1), axis=0)
        return colours

    @functools.cached_property
    def coarse_board(self) -> np.ndarray:
        """Every square of the set-up board at the second look's size (CELLS × LOOK_PX² · 3)."""
        return _coarse(cells(self.board, PX_PER_SQUARE))

    @functools.cached_property
    def class_codes(self) -> np.ndarray:
        """Every example's class as its index in _CLASSES, for numpy to compare."""
        return np.array([_CLASSES.index(c) for c in self.classes])

    def second_look_rows(self, setup: CellClass) -> np.ndarray:
        """The examples a square that held `setup` at set-up is compared with at the second look:
        every piece; bare board only as its own printed pattern (added by the caller), except on a
        temple's square, whose bare look was shown with the temples lifted off."""
        if setup not in self._rows:
            self._rows[setup] = np.array(
                [
                    i
                    for i, c in enumerate(self.classes)
                    if c not in (*_BARE, CellClass.TREASURE)
                    or (setup is CellClass.TREASURE and c is CellClass.EMPTY_LAND)
                ],
                dtype=np.intp,
            )
        return self._rows[setup]

    @functools.cached_property
    def _rows(self) -> dict[CellClass, np.ndarray]:
        return {}

    @functools.cached_property
    def scaled_prototypes(self) -> np.ndarray:
        scaled: np.ndarray = (self.prototypes / self.scale).astype(np.float32)
        return scaled

    @functools.cached_property
    def prototype_norms(self) -> np.ndarray:
        norms: np.ndarray = (self.scaled_prototypes**2).sum(axis=1)
        return norms

    def named(self, cls: CellClass, kind: str) -> tuple[list[Any], np.ndarray]:
        """The dynasties or monuments (kind) among a class's examples, and each example's index
        into them (-1: not named)."""
        key = (cls, kind)
        if key not in self._named:
            start, end = self.class_ranges[cls]
            values = (self.dynasties if kind == "dynasty" else self.monuments)[start:end]
            names = sorted({v for v in values if v is not None})
            self._named[key] = (names, np.array([names.index(v) if v is not None else -1 for v in values]))
        return self._named[key]

    @functools.cached_property
    def _named(self) -> dict[tuple[CellClass, str], tuple[list[Any], np.ndarray]]:
        return {}

    @functools.cached_property
    def class_ranges(self) -> dict[CellClass, tuple[int, int]]:
        """Where the examples of each class lie (examples are sorted by class)."""
        starts = [int(i) for i in self.class_starts] + [len(self.classes)]
        return {self.classes[a]: (a, b) for a, b in itertools.pairwise(starts)}

    @functools.cached_property
    def class_starts(self) -> np.ndarray:
        """Index of the first example of each class (examples are sorted by class)."""
        labels = [c.value for c in self.classes]
        return np.array([i for i, label in enumerate(labels) if i == 0 or labels[i - 1] != label])

    def to_json(self) -> dict[str, Any]:
        return {
            "leaders": [
                {"class": cls.value, "dynasty": dynasty, "signature": np.round(signature, 4).tolist()}
                for (cls, dynasty), signature in zip(self.dynasty_keys, self.dynasty_signatures, strict=True)
            ],
            "px_per_square": PX_PER_SQUARE,
            "board": _png(self.board),
            "looks": _png(self.looks.reshape(-1, PX_PER_SQUARE, 3)),
            "scale": np.round(self.scale, 5).tolist(),
            "setup": [cls.value for cls in self.setup],
            "examples": [
                {
                    "class": cls.value,
                    "dynasty": dynasty,
                    "monument": list(monument) if monument else None,
                    "features": np.round(proto, 4).tolist(),
                }
                for cls, dynasty, monument, proto in zip(
                    self.classes, self.dynasties, self.monuments, self.prototypes, strict=True
                )
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> References:
        if data.get("px_per_square") != PX_PER_SQUARE:
            raise ValueError("px_per_square")
        examples = data["examples"]
        board = _from_png(data["board"])
        if board.shape != (ROWS * PX_PER_SQUARE, COLUMNS * PX_PER_SQUARE, 3) or not examples:
            raise ValueError("board")
        looks = _from_png(data["looks"])
        if looks.shape != (len(examples) * PX_PER_SQUARE, PX_PER_SQUARE, 3):
            raise ValueError("looks")
        return cls(
            board=board,
            prototypes=np.array([e["features"] for e in examples], dtype=np.float32),
            classes=tuple(CellClass(e["class"]) for e in examples),
            dynasties=tuple(e["dynasty"] for e in examples),
            monuments=tuple(tuple(e["monument"]) if e["monument"] else None for e in examples),
            scale=np.array(data["scale"], dtype=np.float32),
            setup=_setup(data["setup"]),
            looks=looks.reshape(len(examples), PX_PER_SQUARE, PX_PER_SQUARE, 3),
            dynasty_signatures=np.array([e["signature"] for e in data.get("leaders", [])], dtype=np.float32).reshape(
                -1, _SIGNATURE
            ),
            dynasty_keys=tuple((CellClass(e["class"]), str(e["dynasty"])) for e in data.get("leaders", [])),
        )


def _png(image: np.ndarray) -> str:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("the board picture could not be encoded")
    return base64.b64encode(data.tobytes()).decode("ascii")


def _from_png(text: str) -> np.ndarray:
    return picture.decode(base64.b64decode(text, validate=True), "A picture in the calibration")


def _setup(values: Sequence[str]) -> tuple[CellClass, ...]:
    setup = tuple(CellClass(v) for v in values)
    if len(setup) != CELLS:
        raise ValueError("setup")
    return setup


def learn(
    board: np.ndarray,
    setup: Sequence[Known],
    patches: np.ndarray,
    lights: Light,
    known: Sequence[Known],
    nudged: Sequence[bool],
) -> References:
    """References from square patches whose content the player told us.

    board: the set-up board seen from above (`rectify`), and what each square held (`setup`);
    patches (n, px, px, 3)
    with the light on each (one row per patch) and what they hold; nudged: whether a patch was cut off-centre
    or turned, to show how a piece put down carelessly looks. Those extra patches widen what each
    class may look like; the spread of the features (what counts as "near") is learnt from the
    plain ones only: the many squares of empty land, river and treasure at set-up.
    """
    prototypes = features(patches, lights)
    looks = np.clip(np.rint(lights.undo(patches.astype(np.float32))), 0, 255).astype(np.uint8)
    plain = ~np.asarray(nudged, dtype=bool)
    labels = np.array([k.cls.value for k in known])
    scale = _spread_within(prototypes[plain], labels[plain])
    order = sorted(range(len(known)), key=lambda i: known[i].cls.value)
    return References(
        board=board,
        prototypes=prototypes[order],
        classes=tuple(known[i].cls for i in order),
        dynasties=tuple(known[i].dynasty for i in order),
        monuments=tuple(known[i].monument for i in order),
        scale=scale,
        setup=tuple(piece.cls for piece in setup),
        looks=looks[order],
    )


def _spread_within(prototypes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The usual deviation of a feature within a class, pooled over classes, plus a floor."""
    deviations = [prototypes[labels == label] - prototypes[labels == label].mean(axis=0) for label in set(labels)]
    pooled = np.concatenate(deviations)
    spread: np.ndarray = np.sqrt((pooled**2).mean(axis=0)) + _SCALE_FLOOR
    return spread.astype(np.float32)


# --- reading --------------------------------------------------------------------------------------


class Seen(NamedTuple):
    """How every square compares with what the calibration saw."""

    patches: np.ndarray  # each square's picture, light undone
    each: np.ndarray  # CELLS × examples: distance to every example, in units of the usual feature spread
    by_class: np.ndarray  # CELLS × classes: distance to the nearest example of every class
    nearest: np.ndarray  # CELLS: the nearest example of all
    misfit: np.ndarray  # CELLS: how far from its bare self under any smooth light (`light`)
    washed: np.ndarray  # CELLS: share of the square whose colour glare has clipped away
    undone: Undone  # the light undone, pixel by pixel
    tint: np.ndarray  # 3: the lamp's colour


def distances(top_down: np.ndarray, references: References, lit: Light | None = None) -> Seen:
    """Every square compared with every example (see `Seen`)."""
    lit = lit or light(top_down, references.board)
    undone = undo_light(top_down, references.board, lit)
    patches = cells(undone.image, PX_PER_SQUARE)
    # Under a glare a clipped channel has lost the colour beneath: it could have been anything.
    lost = (_channels(np.maximum, top_down) >= _CLIPPED) & (undone.glare > _GLARE_CLIPS)
    washed = cells(lost[..., None].astype(np.float32), PX_PER_SQUARE).reshape(CELLS, -1).mean(axis=1)
    feats = features(patches, Light.unchanged(len(patches))) / references.scale
    protos = references.scaled_prototypes
    # Squared distances of every square to every example: |a|² - 2ab + |b|².
    squared = (feats**2).sum(axis=1)[:, None] - 2 * feats @ protos.T + references.prototype_norms[None, :]
    each = np.sqrt(np.maximum(squared, 0.0))
    by_class = np.minimum.reduceat(each, references.class_starts, axis=1)
    misfit = lit.misfit if lit.misfit is not None else np.zeros(CELLS, np.float32)
    return Seen(patches, each, by_class, each.argmin(axis=1), misfit, washed, undone, lit.tint)


class Look(NamedTuple):
    """What the squares show, and where something may lie over the board."""

    cells: tuple[CellReading, ...]  # one reading per square, row-major
    # Squares the first look could not read, and the second neither read as a piece with
    # confidence nor as the bare board's printed pattern: where an arm reaching in may be.
    obscured: tuple[int, ...]
    # Squares where a glare saturated the sensor: a shorter exposure would show more of them.
    dazzled: tuple[int, ...] = ()


def classify(
    top_down: np.ndarray,
    references: References,
    min_confidence: float = MIN_CONFIDENCE,
    lit: Light | None = None,
    face_down: Collection[int] | None = None,
) -> Look:
    """One reading per square (row-major). Squares below min_confidence come back as UNKNOWN.
    lit: the light on the board, if already worked out (`light`). face_down: the squares where a
    face-down tile may lie (under a monument built or about to be), None when not known (anywhere).
    Dynasties need a closer look than this small picture gives: see `name_dynasty`.

    The first look compares a few numbers per square with the references; the squares it cannot
    read get a second, closer one (`second_look`)."""
    seen = distances(top_down, references, lit)
    first = _first_look(seen, references, min_confidence)
    # The squares the first look could not read, and those it read without much to spare: a
    # second look that clearly sees something else there overrules it (it is right far more often).
    doubtful = [
        cell
        for cell, reading in enumerate(first)
        if reading.cls is CellClass.UNKNOWN or reading.confidence < _SECOND_OPINION
    ]
    dazzled = tuple(int(cell) for cell in np.flatnonzero(seen.washed > _DAZZLED))
    if not doubtful:
        return Look(_colours_checked(first, top_down, seen, references), (), dazzled)
    second = second_look(top_down, seen, references, doubtful, face_down)
    cells = list(first)
    obscured = []
    for cell, fit in zip(doubtful, second, strict=True):
        unread = first[cell].cls is CellClass.UNKNOWN
        if fit.confidence >= min_confidence and (unread or fit.cls is not first[cell].cls):
            cells[cell] = CellReading(fit.cls, fit.confidence, None, fit.monument)
        if unread and not (fit.misfit < _PATTERN_FIT if fit.cls in _BARE else fit.confidence >= min_confidence):
            obscured.append(cell)
    return Look(_colours_checked(tuple(cells), top_down, seen, references), tuple(obscured), dazzled)


def _first_look(seen: Seen, references: References, min_confidence: float) -> tuple[CellReading, ...]:
    glare = cells(seen.undone.glare[..., None], PX_PER_SQUARE).reshape(CELLS, -1).max(axis=1)
    two = (
        np.partition(seen.by_class, 1, axis=1)[:, :2]
        if seen.by_class.shape[1] > 1
        else np.pad(seen.by_class, ((0, 0), (0, 1)), constant_values=np.inf)
    )
    confidence = _confidence(two[:, 0], two[:, 1])
    readings = []
    for cell in range(CELLS):
        cls = references.classes[int(seen.nearest[cell])]
        if seen.misfit[cell] < _SURELY_BARE and seen.washed[cell] <= _WASHED:
            # The board's printed pattern shows through: the square holds what it held at set-up.
            cls, confidence[cell] = references.setup[cell], 1.0
        bare = cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)
        if bare and references.setup[cell] is cls and seen.misfit[cell] > _EMPTY_MISFIT:
            # Bare board has its printed pattern; a pale piece in a glare spot has only its colour.
            # (A temple's square was not bare at set-up: its pattern is not known.)
            confidence[cell] = 0.0
        if bare and seen.misfit[cell] > _SURELY_BARE and glare[cell] > _GLARE_DOUBT:
            # Under a glare a pale piece comes near the glaring board; a glare spot missed or
            # followed loosely leaves a bare square's pattern only roughly fitting: a closer look.
            confidence[cell] = 0.0
        if seen.washed[cell] > _WASHED and not (
            bare and references.setup[cell] is cls and seen.misfit[cell] < _BARE_MISFIT[1]
        ):
            # A glare has burnt the colours out: nothing there can be read, unless the square still
            # shows its set-up self's printed pattern (the misfit compares with that: a temple
            # square's set-up self holds its treasure, so there it says nothing of bare land).
            confidence[cell] = 0.0
        if confidence[cell] < min_confidence:
            readings.append(CellReading(CellClass.UNKNOWN, float(confidence[cell])))
            continue
        monument = _monument(seen.each[cell], references) if cls is CellClass.MONUMENT else None
        readings.append(CellReading(cls, float(confidence[cell]), None, monument))
    return tuple(readings)


# --- the second look ------------------------------------------------------------------------------

_BARE = (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)
_CLASSES = tuple(CellClass)
LOOK_PX = 8  # px per square of the second look: a piece put down a little off-centre still lines up
_LOOK_NOISE = (5.0, 0.03)  # grey levels a pixel may be off by: sensor noise, and a share of its brightness
_LOOK_OUTLIER = 9.0  # (in noise units, squared) a pixel off by more is a neighbour's overhang, not the piece
_LOOK_MARGIN = 0.5  # how much worse (as a share) the next class must fit for the default confidence
_LOOK_FAR = 3.0  # a fit worse than this (mean squared noise units) is nothing we know
_PATTERN_FIT = 0.6  # a bare square fits its own printed pattern this well; no hand or plain piece does
# ... and this well at least, under the curved edge of a glare spot a linear glare does not follow
# (measured: up to 2.1); only a face-down tile, which no set-up showed, and a hand fit as well.
_BARE_FIT = 2.5
# How firmly the light worked out from the board around a square holds against what the square
# itself suggests: as many pixels' worth for the brightness, as a share of the pixels for the glare.
_HOLD_BRIGHTNESS = 2.0
_HOLD_GLARE = 0.02
_BRIGHTNESS_ROOM = (0.75, 1.33)  # how far the brightness on a piece may be from the board's around it
_GLARE_ROOM = (-25.0, 90.0)  # grey levels: ... and its glare (a glare spot's heart may hide under a piece)
_HOLD_SLOPE = 0.02  # as _HOLD_GLARE, for how fast the extra glare changes across the square
_SECOND_OPINION = 0.9  # first-look confidence below which the second look checks the reading
_BURNT_OUT = 0.7  # share of a square washed out beyond which no piece is named on it
_BLIND = 0.95  # ... and beyond which not even the bare board is: too little of its pattern is left


class Fit(NamedTuple):
    """The second look's verdict on one square."""

    cls: CellClass
    confidence: float
    misfit: float  # how badly the best example fits (mean squared noise units)
    monument: tuple[str, str] | None = None


def _coarse(patches: np.ndarray) -> np.ndarray:
    """(n, px, px, c) patches averaged down to LOOK_PX, flattened: (n, LOOK_PX² · c)."""
    n, px, _, c = patches.shape
    f = px // LOOK_PX
    coarse: np.ndarray = patches.reshape(n, LOOK_PX, f, LOOK_PX, f, c).mean(axis=(2, 4), dtype=np.float32)
    return coarse.reshape(n, -1)


def second_look(
    top_down: np.ndarray,
    seen: Seen,
    references: References,
    squares: Sequence[int],
    face_down: Collection[int] | None = None,
) -> list[Fit]:
    """A closer look at squares the first one could not read, or read with little to spare: each
    example's own picture, as the light on the square would show it, compared pixel by pixel with
    what the camera saw.

    The first look compares a few means, which a glare spot's clipped channels or a light a
    little off skew. Here a clipped pixel says only "at least this bright", which an example
    that would show it as bright satisfies; and each example may take a little more or less
    light and glare than the board around it suggests, as the heart of a glare spot or the edge
    of a shadow brings. The best-fitting class wins when the next class fits clearly worse.
    A bare square's candidate is its own printed pattern, seen at set-up. A face-down tile, which
    was never shown, comes near that pattern: where one may lie (`face_down`, None: anywhere) the
    pattern must fit closely."""
    index = np.asarray(squares)
    raw = cells(top_down, PX_PER_SQUARE)[index]
    glare = _coarse(cells(seen.undone.glare[..., None], PX_PER_SQUARE)[index])
    target = (_coarse(raw).reshape(len(index), -1, 3) - glare[..., None]).reshape(len(index), -1)
    # The mean of pixels one of which is clipped says only "at least this bright" too.
    exact = _coarse((raw >= _CLIPPED).astype(np.float32)) == 0
    brightness = _coarse(cells(seen.undone.brightness[..., None], PX_PER_SQUARE)[index])
    gain = (brightness.reshape(len(index), -1, 1) * seen.tint).reshape(len(index), -1)
    fits = []
    for k, cell in enumerate(squares):
        setup = references.setup[cell]
        rows = references.second_look_rows(setup)
        looks = np.concatenate([references.coarse_looks[rows], references.coarse_board[cell : cell + 1]])
        labels = np.concatenate([references.class_codes[rows], [_CLASSES.index(setup)]])
        loss = _fit_loss(looks * gain[k], target[k], exact[k])
        pattern_fit = _PATTERN_FIT if face_down is None or cell in face_down else _BARE_FIT
        fits.append(_verdict(loss, labels, rows, references, float(seen.washed[cell]), pattern_fit))
    return fits


_LEADERS = tuple(cls for cls in CellClass if cls.is_leader)
# A coloured figure shows at least this share of its colour's steps (measured on the bench's
# figures: 0.24 at the least; black ones a third of blue's, so a shadowed blue one stays possible)
_PALE = 0.2
_FIGURE = slice(PX_PER_SQUARE // 4, PX_PER_SQUARE - PX_PER_SQUARE // 4)  # a leader's middle: the figure


def _channel_steps(colour: np.ndarray) -> np.ndarray:
    """Blue less green and green less red: what a white glare, added to every channel, leaves."""
    steps: np.ndarray = np.stack([colour[..., 0] - colour[..., 1], colour[..., 1] - colour[..., 2]], axis=-1)
    return steps


def _colours_checked(
    readings: tuple[CellReading, ...], top_down: np.ndarray, seen: Seen, references: References
) -> tuple[CellReading, ...]:
    """Leaders, however read, named a colour only when their middle shows it: see `_colour_agrees`."""
    leaders = [cell for cell, reading in enumerate(readings) if reading.cls in _LEADERS]
    if not leaders:
        return readings
    middles = cells(top_down, PX_PER_SQUARE)[leaders][:, _FIGURE, _FIGURE].astype(np.float32)
    brightness = cells(seen.undone.brightness[..., None], PX_PER_SQUARE)[leaders].mean(axis=(1, 2, 3))
    checked = list(readings)
    for middle, light, cell in zip(middles, brightness, leaders, strict=True):
        if not _colour_agrees(readings[cell].cls, middle, float(light), seen.tint, references):
            checked[cell] = CellReading(CellClass.UNKNOWN, 0.0)
    return tuple(checked)


def _colour_agrees(
    cls: CellClass, middle: np.ndarray, brightness: float, tint: np.ndarray, references: References
) -> bool:
    """Whether a leader of colour `cls` shows that colour in its middle. Both looks weigh a
    figure's outline and symbol as much as its colour, and a figure turned and leaning as no
    example was can come nearer another colour's; a glare, which adds the same to every channel,
    leaves the steps between channels as they were. The middle's steps must be nearest `cls`'s
    examples' under the square's light, or the black leader's (a figure in a shadow the light does
    not follow closely shows little colour) if it still shows a good part of its own colour."""
    seen = _channel_steps(middle.reshape(-1, 3).mean(axis=0))
    expected = {
        leader: _channel_steps(brightness * tint * colour) for leader, colour in references.leader_colours.items()
    }
    nearest = min(expected, key=lambda leader: float(np.sum((seen - expected[leader]) ** 2)))
    if nearest is cls or cls is CellClass.LEADER_BLACK:
        return nearest is cls
    return nearest is CellClass.LEADER_BLACK and bool(np.linalg.norm(seen) >= _PALE * np.linalg.norm(expected[cls]))


@functools.cache
def _glare_terms() -> np.ndarray:
    """A glare changing linearly across a second-look patch, as (pixels · 3) × (1, x, y), with x
    and y where each pixel lies across the square, -0.5..0.5."""
    centre = (np.arange(LOOK_PX) + 0.5) / LOOK_PX - 0.5
    y, x = np.meshgrid(centre, centre, indexing="ij")
    terms = np.stack([np.ones(x.size), x.ravel(), y.ravel()], axis=1)
    return np.repeat(terms, 3, axis=0).astype(np.float32)


def _fit_loss(lit: np.ndarray, target: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """How badly each example (lit: K × pixels, under the light worked out for the square)
    explains target (what the camera saw less that light's glare), allowing each example its own
    brightness a and extra glare b, within bounds, the glare changing linearly across the square
    (near a glare spot's heart it changes quickly); exact: the pixels not clipped (the others
    need only be reached). Least squares over the exact pixels, held towards a = 1 and no extra
    glare."""
    k = len(lit)
    w = exact.astype(np.float32)
    # The glare's terms are the same for every example, only the brightness term differs: the
    # normal equations need a few products of lit with a vector, not a design matrix per example.
    terms = _glare_terms()
    seen_terms = terms * w[:, None]  # the terms on the exact pixels only
    lit_lit = (lit * lit) @ w
    normal = np.empty((k, 4, 4), np.float32)
    normal[:, 0, 0] = lit_lit
    normal[:, 0, 1:] = normal[:, 1:, 0] = lit @ seen_terms
    normal[:, 1:, 1:] = seen_terms.T @ terms
    moments = np.empty((k, 4), np.float32)
    moments[:, 0] = lit @ (w * target)
    moments[:, 1:] = seen_terms.T @ target
    n = float(w.sum())
    hold = np.empty((k, 4), np.float32)
    hold[:, 0] = _HOLD_BRIGHTNESS * lit_lit / max(n, 1.0) + 1e-3
    hold[:, 1] = _HOLD_GLARE * n + 1e-3
    hold[:, 2:] = _HOLD_SLOPE * n + 1e-3
    moments[:, 0] += hold[:, 0]  # towards a = 1
    normal[:, [0, 1, 2, 3], [0, 1, 2, 3]] += hold
    fit = np.linalg.solve(normal, moments[..., None])[..., 0]
    fit[:, 0] = np.clip(fit[:, 0], *_BRIGHTNESS_ROOM)
    fit[:, 1] = np.clip(fit[:, 1], *_GLARE_ROOM)
    predicted = fit[:, :1] * lit + fit[:, 1:] @ terms.T
    off = target - predicted
    off = np.where(exact, off, np.maximum(off, 0.0))
    noise = _LOOK_NOISE[0] + _LOOK_NOISE[1] * np.clip(predicted, 0.0, 255.0)
    loss: np.ndarray = np.minimum((off / noise) ** 2, _LOOK_OUTLIER).mean(axis=-1)
    return loss


def _verdict(
    loss: np.ndarray, labels: np.ndarray, rows: np.ndarray, references: References, washed: float, pattern_fit: float
) -> Fit:
    """The class whose best example fits best, with a confidence from how much worse the next
    class fits (0.5, the default threshold, at _LOOK_MARGIN worse) and how well it fits at all.
    loss and labels: the examples `rows`, then the square's own bare look; pattern_fit: the worst
    fit of that look that still names the square bare."""
    best_by_class: dict[int, int] = {}
    for i in np.argsort(loss, kind="stable"):
        best_by_class.setdefault(int(labels[i]), int(i))
        if len(best_by_class) == 2:
            break
    ranked = list(best_by_class.values())
    best = float(loss[ranked[0]])
    other = float(loss[ranked[1]]) if len(ranked) > 1 else np.inf
    gap = min(1.0, (other / max(best, 1e-6) - 1) * 0.5 / _LOOK_MARGIN)
    familiar = min(1.0, _LOOK_FAR / max(best, 1e-6))
    cls = _CLASSES[int(labels[ranked[0]])]
    if cls in _BARE and best > pattern_fit and washed <= _WASHED:
        # Bare board shows its own printed pattern; a plain piece in the board's colours (a
        # face-down tile) only comes near it. (Where a glare has burnt most of the square out,
        # what is left of the pattern is all there is to go by.)
        familiar = 0.0
    if cls not in _BARE and washed > _BURNT_OUT:
        familiar = 0.0  # what is left to see of a piece at the square's edge may be a neighbour's
    if washed > _BLIND:
        familiar = 0.0  # every example bright enough fits a square burnt out all over
    monument = None
    if cls is CellClass.MONUMENT:
        each = np.full(len(references.classes), np.inf, np.float32)
        each[rows] = loss[:-1]  # every example but the square's own bare look, last
        monument = _monument(each, references)
    return Fit(cls, gap * familiar, best, monument)


_CLIPPED = 250  # a channel this bright is clipped: the sensor saw at least this much, maybe far more
_GLARE_CLIPS = 30  # grey levels of glare beyond which a clipped channel says nothing of the piece
_WASHED = 0.3  # share of a square washed out beyond which it cannot be read
_DAZZLED = 0.05  # ... and beyond which a shorter exposure is worth a look
_GLARE_DOUBT = 20.0  # grey levels of glare on a square beyond which bare board must show its pattern closely
_SURELY_BARE = 0.03  # a square this near its set-up self under a smooth light is that (pieces: > 0.035)
_EMPTY_MISFIT = 0.07  # no bare square is further from its set-up self under a smooth light (measured: < 0.065)
_MARGIN = 0.6  # how much further (as a share) the next class must be for full confidence
_FAR = 12.0  # a square further than this from every example looks like nothing we know


def _confidence(best: np.ndarray, other: np.ndarray) -> np.ndarray:
    """1 for a square much nearer one class than any other and near enough to it; at 0.5 (the
    default threshold) the next class is 30 % further away, or the square is far from them all."""
    gap = np.clip((other / np.maximum(best, 1e-6) - 1) / _MARGIN, 0.0, 1.0)
    familiar = np.clip(_FAR / np.maximum(best, 1e-6), 0.0, 1.0)
    result: np.ndarray = gap * familiar
    return result


_NAMED = 1.25  # how much further the nearest example of any other monument must be to name this one


def _monument(each: np.ndarray, references: References) -> tuple[str, str] | None:
    """The colours of the monument whose quarter is nearest this square (`each`: its distance to
    every example), when the nearest quarter of any other monument is clearly further."""
    names, codes = references.named(CellClass.MONUMENT, "monument")
    start, end = references.class_ranges[CellClass.MONUMENT]
    near = np.where(codes >= 0, each[start:end], np.inf)
    best = int(np.argmin(near))
    rival = float(np.min(near[codes != codes[best]], initial=np.inf))
    if not names or rival < _NAMED * float(near[best]):
        return None
    name: tuple[str, str] = names[codes[best]]
    return name


# --- dynasties ------------------------------------------------------------------------------------

DYNASTY_PX = 48  # px per square when looking closely at a leader's symbol
_OFF_CENTRE = 4  # px at DYNASTY_PX: how far off-centre a leader may stand (0.08 square)
_SIGNATURE = 8 * 16  # harmonics × rings
_DYNASTY_MATCH = 0.6  # similarity (of what sets a symbol apart) below which no dynasty is named
_DYNASTY_MARGIN = 0.3  # lead over the best other dynasty needed to name one


def leader_closeup(frame: np.ndarray, homography: np.ndarray, cell: int) -> np.ndarray:
    """A grey DYNASTY_PX picture of a square with room around it for a leader put down off-centre."""
    m = _OFF_CENTRE
    shift = np.array([[1, 0, m], [0, 1, m], [0, 0, 1]], dtype=np.float64)
    transform = shift @ square_transform(homography, cell, DYNASTY_PX)
    closeup = cv2.warpPerspective(frame, transform, (DYNASTY_PX + 2 * m, DYNASTY_PX + 2 * m))
    grey: np.ndarray = cv2.cvtColor(closeup, cv2.COLOR_BGR2GRAY) if closeup.ndim == 3 else closeup
    return grey


@functools.cache
def _polar_maps(size: int, offsets: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, np.ndarray]:
    """Where to sample a closeup of side `size` for 64 angles × 16 radii about each offset centre."""
    angles = np.arange(64) * (2 * np.pi / 64)
    radii = np.arange(16) * (DYNASTY_PX * 0.42 / 16)
    centre = (size - 1) / 2
    xs = [centre + dx + np.outer(np.cos(angles), radii) for dx, _ in offsets]
    ys = [centre + dy + np.outer(np.sin(angles), radii) for _, dy in offsets]
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


def dynasty_signatures(closeup: np.ndarray, offsets: tuple[tuple[int, int], ...] = ((0, 0),)) -> np.ndarray:
    """What a leader's symbol looks like however the leader is turned, seen about each offset
    centre: for rings around the centre, how strongly the brightness varies around the ring at
    each of its first harmonics (len(offsets) × _SIGNATURE)."""
    map_x, map_y = _polar_maps(closeup.shape[0], offsets)
    polar = cv2.remap(closeup.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR).reshape(len(offsets), 64, 16)
    polar = (polar - polar.mean(axis=(1, 2), keepdims=True)) / (polar.std(axis=(1, 2), keepdims=True) + 1e-3)
    harmonics = np.abs(np.fft.rfft(polar, axis=1))[:, 1:9].reshape(len(offsets), -1)
    norms = np.maximum(np.linalg.norm(harmonics, axis=1, keepdims=True), 1e-6)
    signatures: np.ndarray = (harmonics / norms).astype(np.float32)
    return signatures


_OFFSETS = tuple((dx, dy) for dy in (-_OFF_CENTRE, 0, _OFF_CENTRE) for dx in (-_OFF_CENTRE, 0, _OFF_CENTRE))


def _residuals(signatures: np.ndarray) -> np.ndarray:
    """Signatures less their mean, unit-norm: what tells one dynasty's symbol from the others'
    once the shape every leader of a colour shares is taken away."""
    residual = signatures - signatures.mean(axis=0)
    result: np.ndarray = residual / np.maximum(np.linalg.norm(residual, axis=-1, keepdims=True), 1e-6)
    return result


def _named(scores: np.ndarray, names: Sequence[str]) -> str | None:
    """The best-scoring name, when it is a clear match and clearly ahead of every other name."""
    best = int(np.argmax(scores))
    rival = max((float(s) for s, n in zip(scores, names, strict=True) if n != names[best]), default=-1.0)
    if scores[best] < _DYNASTY_MATCH or scores[best] - rival < _DYNASTY_MARGIN:
        return None
    return names[best]


def name_dynasty(closeup: np.ndarray, cls: CellClass, references: References) -> str | None:
    """The dynasty of a leader of class `cls` in a `leader_closeup`, when its symbol is clear."""
    rows = [i for i, (c, _) in enumerate(references.dynasty_keys) if c is cls]
    if len(rows) < 2:
        return None
    known = references.dynasty_signatures[rows]
    mean = known.mean(axis=0)
    seen = dynasty_signatures(closeup, _OFFSETS) - mean
    seen /= np.maximum(np.linalg.norm(seen, axis=1, keepdims=True), 1e-6)
    scores = (seen @ _residuals(known).T).max(axis=0)  # best placement per example
    return _named(scores, [references.dynasty_keys[i][1] for i in rows])


def dynasties_readable(signatures: np.ndarray, keys: Sequence[tuple[CellClass, str]]) -> bool:
    """Whether these pieces' dynasties can be told from above: each leader, compared with the
    leaders of the other colours (each elsewhere on the board), is named right or not at all, and
    most are named. Some editions' symbols are too small or too much in relief to read; naming a
    dynasty wrongly would stop the game for nothing, so then none is named."""
    colours = sorted({cls for cls, _ in keys}, key=lambda c: c.value)
    residual = np.zeros_like(signatures)
    for cls in colours:
        rows = [i for i, (c, _) in enumerate(keys) if c is cls]
        residual[rows] = _residuals(signatures[rows])
    right = 0
    for i, (cls, dynasty) in enumerate(keys):
        others = [j for j, (c, _) in enumerate(keys) if c is not cls]
        named = _named(residual[others] @ residual[i], [keys[j][1] for j in others])
        if named is not None and named != dynasty:
            return False
        right += named == dynasty
    return len(keys) > 0 and right >= len(keys) / 2
