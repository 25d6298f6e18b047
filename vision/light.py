"""How the light on the board differs from calibration, square by square and pixel by pixel.

Light changes between calibration and play (a lamp switched on, clouds, the camera's exposure, a
glare spot, a shadow's edge): the set-up board was photographed at calibration, so the squares
that still show its printed pattern tell how the light has changed around every piece (`light`),
and it is undone pixel by pixel (`undo_light`). Where a glare has clipped a piece's colours,
nothing is guessed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.reading import CELLS, COLUMNS, ROWS
from vision.rectify import PX_PER_SQUARE, cells
from vision.tuning import TUNING

_T = TUNING.light
_LIGHT_PX = 8  # px per square at which the light is worked out: it changes smoothly within a square
_EDGE_PX = round(_T.edge * _LIGHT_PX)  # a bare square's edge, left out
_QUARTER = _LIGHT_PX // 2


def cell_colours(top_down: np.ndarray, px: int = PX_PER_SQUARE) -> np.ndarray:
    """The mean colour of each square (CELLS × 3, float32): an area resize is exactly that."""
    means = cv2.resize(top_down, (COLUMNS, ROWS), interpolation=cv2.INTER_AREA)
    result: np.ndarray = means.reshape(CELLS, 3).astype(np.float32)
    return result


def burnt(patches: np.ndarray) -> np.ndarray:
    """The share of each square's pixels (n patches, px × px × 3) a glare burnt out: some
    channel clipped."""
    clipped = patches.max(axis=3) >= TUNING.clipped
    share: np.ndarray = clipped.reshape(len(patches), -1).mean(axis=1)
    return share


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
    # squares: how far each is from the bare board under any smooth light not much dimmer than
    # the light around it (inf: dimmer than that, its pattern does not show)
    misfit: np.ndarray | None = None

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




def _lamp(ratios: np.ndarray) -> np.ndarray:
    """The change of colour and brightness the lamp brought, from each square's colour now over
    its colour on the empty board. Empty squares all change alike; pieces each change their own
    way. On a crowded board most squares hold pieces, so a median over all of them follows the
    pieces: take instead the largest group of squares that changed alike."""
    chroma = (ratios / np.maximum(ratios.mean(axis=1, keepdims=True), 1e-6)).astype(np.float32)
    apart = np.abs(chroma[:, None, 0] - chroma[None, :, 0])
    for channel in (1, 2):  # one channel at a time: a third of the memory traffic of all at once
        np.maximum(apart, np.abs(chroma[:, None, channel] - chroma[None, :, channel]), out=apart)
    alike = apart < _T.lamp_tolerance
    group = alike[int(alike.sum(axis=1).argmax())]
    lamp: np.ndarray = np.median(ratios[group], axis=0)
    return lamp


def light(
    top_down: np.ndarray, board: np.ndarray, known: np.ndarray | None = None, maybe: np.ndarray | None = None
) -> Light:
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
    agreed on it): the light is measured on them, whatever their pattern looks like. maybe: with
    `known`, squares that may still show it (agreed bare, but changed since): bare when their
    pattern says so, as squares are when nothing is known.
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
    pattern = misfit < _T.bare_misfit[1]
    if known is not None and maybe is not None:
        known = known | (maybe & pattern)
    empty_like = plausible & (pattern if known is None else known)
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
    glowing = (misfit < _T.bare_misfit[0]) & (share > _T.bare_gain[0]) & (share < _T.bare_gain[1]) & (fit[:, 3] > -12)
    # A plain piece under a glare is fitted as well by its square's pattern faded to nothing (or
    # less) beneath the glare: a bare square shows its pattern at a good share of the light around.
    misfit = np.where(share > _T.bare_gain[0], misfit, np.inf).astype(np.float32)
    gain = (reference[:, :1] * tint[None, :]).astype(np.float32)
    return Light(
        gain=np.maximum(gain, 0.05),
        glare=np.maximum(reference[:, 1:], 0.0).astype(np.float32),
        bare=(agree[:, 0] > 0) | glowing if known is None else known & plausible,
        misfit=misfit,
    )


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
    usable = (target < _T.clipped_small).astype(np.float32)
    design, target = design * usable, target * usable
    # In float64: where few values are left unclipped the normal matrix is nearly singular, and in
    # float32 its small ridge is lost beside sums of squared grey levels (numpy then refuses to solve).
    normal = (design.transpose(0, 2, 1) @ design).astype(np.float64) + np.eye(design.shape[-1]) * 1e-3
    moments = (design.transpose(0, 2, 1) @ target).astype(np.float64)
    fit: np.ndarray = np.linalg.solve(normal, moments).astype(np.float32)
    count: np.ndarray = usable.sum(axis=(1, 2))
    residual = np.sqrt(((design @ fit - target) ** 2).sum(axis=(1, 2)) / np.maximum(count, 1.0))
    misfit: np.ndarray = residual / np.maximum(target.sum(axis=(1, 2)) / np.maximum(count, 1.0), 1.0)
    return fit, count, misfit


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
    towards the looser estimate as if it were `prior` of a bare neighbourhood, so that where bare
    board is scarce, or all one colour, that estimate stands. The glare never goes below floor."""
    # What a least-squares fit of seen ≈ a · shape + b needs, summed over the usable channels.
    terms = (usable, usable * shape, usable * shape * shape, usable * shape * seen, usable * seen)
    sums = cv2.merge([weight * _channels(np.add, term) for term in terms])
    typical = float((shape * shape).mean())  # puts the prior on a and on b on the same footing
    for reach in (_T.far, _T.near):
        n, s1, ss, so, o1 = cv2.split(cv2.GaussianBlur(sums, (0, 0), reach * _LIGHT_PX))
        pa, pb = _T.prior * typical, _T.prior
        saa, sab, sbb = ss + pa, s1, n + 3 * pb
        ra, rb = so + pa * a, o1 + 3 * pb * b
        det = saa * sbb - sab * sab
        fit_a, fit_b = (ra * sbb - rb * sab) / det, (saa * rb - sab * ra) / det
        # Light only ever adds: a fit wanting less than none is brightness alone.
        dark = fit_b < floor
        a = np.where(dark, (ra - sab * floor) / saa, fit_a)
        b = np.where(dark, floor, fit_b)
    return a, b


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
        (misfit < _T.bare_misfit[0])
        & (share > _T.bare_gain[0])
        & (share < _T.bare_gain[1])
        & (fit[:, 1, 0] > _T.spot_floor)
        & (count > 0.7 * q * q * 3)
    )
    return np.kron(glowing.reshape(ROWS * 2, COLUMNS * 2).astype(np.float32), np.ones((q, q), np.float32))


def _glare_spot(glare: np.ndarray, weight: np.ndarray) -> np.ndarray | None:
    """The glare of a lamp's reflection as one round spot, brightest in the middle and fading
    evenly (a Gaussian: its logarithm is a quadratic), fitted to the glare on the bare board;
    None when there is no such spot."""
    px = _LIGHT_PX
    where = (weight > 0.5) & (glare > _T.spot_floor)
    if np.count_nonzero(where) < _T.spot_evidence * px * px:
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
    if spot.max() < _T.spot_peak or np.median(np.abs(spot[where] - level) / level) > 0.35:
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
    usable = (seen < _T.clipped_small).astype(np.float32)
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
        unclipped = (beside < _T.clipped_small).astype(np.float32)
        a, rest = _follow(beside, shape, weight, unclipped, a, np.zeros_like(spot), -spot)
        b = rest + spot
    full = (top_down.shape[1], top_down.shape[0])
    a, b = (cv2.resize(plane.astype(np.float32), full, interpolation=cv2.INTER_LINEAR) for plane in (a, b))
    seen = top_down.astype(np.float32)
    a = np.maximum(a, 0.05)
    undone: np.ndarray = (seen - b[..., None]) / (a[..., None] * lit.tint)
    return Undone(undone, b, a)
