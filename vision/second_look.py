"""The second look at a square the first could not read, or read with little to spare.

Each example's own picture, as the light on the square would show it, is compared pixel by pixel
with what the camera saw (`second_look`): a clipped pixel says only "at least this bright", and
each example may take a little more or less light and a glare changing across the square, as the
heart of a glare spot or the edge of a shadow brings (`fit_loss`). The best-fitting class wins when
the next class fits clearly worse; bare board is only ever its own printed pattern. Only the few
examples of each kind that a rough fit ranks first are fitted so closely (`_rough_loss`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from vision.first_look import Seen, monument_colours
from vision.reading import CellClass
from vision.rectify import PX_PER_SQUARE, cells
from vision.tuning import TUNING

if TYPE_CHECKING:
    from vision.references import References

_T = TUNING.second
_BARE = (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)
_CLASSES = tuple(CellClass)
LOOK_PX = 8  # px per square of the second look: a piece put down a little off-centre still lines up


class Fit(NamedTuple):
    """The second look's verdict on one square."""

    cls: CellClass
    confidence: float
    misfit: float  # how badly the best example fits (mean squared noise units)
    monument: tuple[str, str] | None = None


def coarse(patches: np.ndarray) -> np.ndarray:
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
    pattern must fit closely. Of each kind of piece (each monument its own kind, to weigh it
    against the others) only the examples a rough fit ranks first are fitted closely: the close
    fit of all 1,600 cost 2.3 ms a square, and picked the same class."""
    index = np.asarray(squares)
    raw = cells(top_down, PX_PER_SQUARE)[index]
    glare = coarse(cells(seen.undone.glare[..., None], PX_PER_SQUARE)[index])
    target = (coarse(raw).reshape(len(index), -1, 3) - glare[..., None]).reshape(len(index), -1)
    # The mean of pixels one of which is clipped says only "at least this bright" too.
    exact = coarse((raw >= TUNING.clipped).astype(np.float32)) == 0
    brightness = coarse(cells(seen.undone.brightness[..., None], PX_PER_SQUARE)[index])
    gain = (brightness.reshape(len(index), -1, 1) * seen.tint).reshape(len(index), -1)
    # Each square's examples: the few of each kind that fit best roughly, fitted closely.
    rough = _rough_loss(references, gain, target, exact)
    fits = []
    for k, cell in enumerate(squares):
        setup = references.setup[cell]
        rows = references.second_look_rows(setup)
        rows = rows[nearest(rough[rows, k], references.kind_codes[rows], _T.nearest)]
        looks = np.concatenate([references.coarse_looks[rows], references.coarse_board[cell : cell + 1]])
        labels = np.concatenate([references.class_codes[rows], [_CLASSES.index(setup)]])
        loss = fit_loss(looks * gain[k], target[k], exact[k])
        pattern_fit = _T.pattern_fit if face_down is None or cell in face_down else _T.bare_fit
        fits.append(_verdict(loss, labels, rows, references, float(seen.washed[cell]), pattern_fit))
    return fits


def _rough_loss(references: References, gain: np.ndarray, target: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """How badly every example explains each square's target (examples × squares) under a rough
    fit: its own brightness and one extra glare over the whole square, least squares over the
    exact pixels, with no room for a neighbour's overhang. Cheap enough for every example, it
    picks the few worth `fit_loss`."""
    noise = _T.noise[0] + _T.noise[1] * np.clip(target, 0.0, 255.0)
    w = exact / noise**2
    s_l = references.coarse_looks @ (gain * w).T
    s_lt = references.coarse_looks @ (gain * w * target).T
    s_ll = references.coarse_looks_squared @ (gain * gain * w).T
    n = w.sum(axis=1) + 1e-6
    s_t = (w * target).sum(axis=1)
    s_tt = (w * target * target).sum(axis=1)
    a = np.clip((s_lt * n - s_l * s_t) / (s_ll * n - s_l * s_l + 1e-6), *_T.brightness_room)
    b = np.clip((s_t - a * s_l) / n, *_T.glare_room)
    loss: np.ndarray = s_tt - 2 * a * s_lt - 2 * b * s_t + a * a * s_ll + 2 * a * b * s_l + b * b * n
    return loss


def nearest(apart: np.ndarray, kinds: np.ndarray, count: int) -> np.ndarray:
    """The `count` examples of each kind nearest by `apart` (their distances), as sorted indices."""
    order = np.lexsort((apart, kinds))
    ranked = kinds[order]
    first = np.searchsorted(ranked, ranked)  # where each one's kind starts among the ranked
    return np.sort(order[np.arange(len(order)) - first < count])


@functools.cache
def _glare_terms() -> np.ndarray:
    """A glare changing linearly across a second-look patch, as (pixels · 3) × (1, x, y), with x
    and y where each pixel lies across the square, -0.5..0.5."""
    centre = (np.arange(LOOK_PX) + 0.5) / LOOK_PX - 0.5
    y, x = np.meshgrid(centre, centre, indexing="ij")
    terms = np.stack([np.ones(x.size), x.ravel(), y.ravel()], axis=1)
    return np.repeat(terms, 3, axis=0).astype(np.float32)


def fit_loss(lit: np.ndarray, target: np.ndarray, exact: np.ndarray, kept: np.ndarray | None = None) -> np.ndarray:
    """How badly each example (lit: K × pixels, under the light worked out for the square)
    explains target (what the camera saw less that light's glare), allowing each example its own
    brightness a and extra glare b, within bounds, the glare changing linearly across the square
    (near a glare spot's heart it changes quickly); exact: the pixels not clipped (the others
    need only be reached). Least squares over the exact pixels, held towards a = 1 and no extra
    glare. kept: the pixels that count (None: all)."""
    fit = _fitted_light(lit, target, exact, kept)
    fit[:, 0] = np.clip(fit[:, 0], *_T.brightness_room)
    fit[:, 1] = np.clip(fit[:, 1], *_T.glare_room)
    predicted = fit[:, :1] * lit + fit[:, 1:] @ _glare_terms().T
    return _misfit(predicted, target, exact, kept)


def fitted_brightness(
    lit: np.ndarray, target: np.ndarray, exact: np.ndarray, kept: np.ndarray | None = None
) -> np.ndarray:
    """How bright each example (K) is as `fit_loss` fits it, unbounded, against as it came: its
    brightness and its glare together (a darker picture with a glare taken off is darker still),
    over the pixels that count."""
    fit = _fitted_light(lit, target, exact, kept)
    w = (exact if kept is None else exact & kept).astype(np.float32)
    predicted = fit[:, :1] * lit + fit[:, 1:] @ _glare_terms().T
    brightness: np.ndarray = (predicted @ w) / np.maximum(lit @ w, 1e-6)
    return brightness


def _fitted_light(lit: np.ndarray, target: np.ndarray, exact: np.ndarray, kept: np.ndarray | None = None) -> np.ndarray:
    """`fit_loss`'s brightness, glare and the glare's slopes (K × 4) of each example, unbounded."""
    k = len(lit)
    w = (exact if kept is None else exact & kept).astype(np.float32)
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
    hold[:, 0] = _T.hold_brightness * lit_lit / max(n, 1.0) + 1e-3
    hold[:, 1] = _T.hold_glare * n + 1e-3
    hold[:, 2:] = _T.hold_slope * n + 1e-3
    moments[:, 0] += hold[:, 0]  # towards a = 1
    normal[:, [0, 1, 2, 3], [0, 1, 2, 3]] += hold
    fit: np.ndarray = np.linalg.solve(normal, moments[..., None])[..., 0]
    return fit


def _misfit(predicted: np.ndarray, target: np.ndarray, exact: np.ndarray, kept: np.ndarray | None) -> np.ndarray:
    """How badly each prediction (K × pixels) explains target: the mean squared error in units of
    the noise expected at its brightness, each pixel's capped (a neighbour's overhang); clipped
    pixels (not `exact`) need only be reached; over the pixels `kept` (None: all)."""
    off = target - predicted
    off = np.where(exact, off, np.maximum(off, 0.0))
    noise = _T.noise[0] + _T.noise[1] * np.clip(predicted, 0.0, 255.0)
    each = np.minimum((off / noise) ** 2, _T.outlier)
    loss: np.ndarray = each.mean(axis=-1) if kept is None else each[:, kept].mean(axis=-1)
    return loss


def shaded_fit_loss(
    lit: np.ndarray, target: np.ndarray, exact: np.ndarray, kept: np.ndarray | None = None
) -> np.ndarray:
    """As `fit_loss`, on a square a tall piece beside it may shade: each example's brightness may
    fall as far as `shade_room` allows and change smoothly across the square (a shadow's soft
    edge, or its corner), as well as its glare. Every example is given the same room, so a piece
    put down in the shadow fits as well as the bare board it covers would. kept: the pixels that
    count (None: all)."""
    k = len(lit)
    w = (exact if kept is None else exact & kept).astype(np.float32)
    glare, shade = _glare_terms(), _shade_terms()
    design = np.concatenate([lit[..., None] * shade[None], np.broadcast_to(glare, (k, *glare.shape))], axis=-1)
    weighted = design * w[None, :, None]
    normal = np.einsum("kpi,kpj->kij", weighted, design).astype(np.float64)
    moments = np.einsum("kpi,p->ki", weighted, target).astype(np.float64)
    n = float(w.sum())
    lit_lit = (lit * lit) @ w
    terms = shade.shape[1]
    hold = np.empty((k, terms + 3), np.float64)
    hold[:, :terms] = (_T.hold_brightness * lit_lit / max(n, 1.0) + 1e-3)[:, None]
    hold[:, terms] = _T.hold_glare * n + 1e-3
    hold[:, terms + 1:] = _T.hold_slope * n + 1e-3
    moments[:, 0] += hold[:, 0]  # towards a = 1, no change across the square, no extra glare
    index = np.arange(terms + 3)
    normal[:, index, index] += hold
    fit = np.linalg.solve(normal, moments[..., None])[..., 0].astype(np.float32)
    brightness = np.clip(fit[:, :terms] @ shade.T, *_T.shade_room)  # at every pixel
    predicted = lit * brightness + fit[:, terms:] @ glare.T
    return _misfit(predicted, target, exact, kept)


@functools.cache
def _shade_terms() -> np.ndarray:
    """A brightness changing smoothly across a second-look patch, as (pixels · 3) × (1, x, y,
    xy, x², y²): a shadow's edge, straight or round a corner."""
    _, x, y = _glare_terms().T
    return np.stack([np.ones_like(x), x, y, x * y, x * x, y * y], axis=1)


def sides() -> np.ndarray:
    """The pixels (· 3 channels) of a second-look patch along its top, right, bottom and left
    sides: 4 × (LOOK_PX² · 3) bool."""
    along = np.zeros((4, LOOK_PX, LOOK_PX, 3), bool)
    along[0, 0], along[1, :, -1], along[2, -1], along[3, :, 0] = True, True, True, True
    return along.reshape(4, -1)


def _verdict(
    loss: np.ndarray, labels: np.ndarray, rows: np.ndarray, references: References, washed: float, pattern_fit: float
) -> Fit:
    """The class whose best example fits best, with a confidence from how much worse the next
    class fits (0.5, the default threshold, at _T.margin worse) and how well it fits at all.
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
    gap = min(1.0, (other / max(best, 1e-6) - 1) * 0.5 / _T.margin)
    familiar = min(1.0, _T.far / max(best, 1e-6))
    cls = _CLASSES[int(labels[ranked[0]])]
    if cls in _BARE and best > pattern_fit and washed <= TUNING.washed:
        # Bare board shows its own printed pattern; a plain piece in the board's colours (a
        # face-down tile) only comes near it. (Where a glare has burnt most of the square out,
        # what is left of the pattern is all there is to go by.)
        familiar = 0.0
    if cls not in _BARE and washed > _T.burnt_out:
        familiar = 0.0  # what is left to see of a piece at the square's edge may be a neighbour's
    if washed > _T.blind:
        familiar = 0.0  # every example bright enough fits a square burnt out all over
    colours = None
    if cls is CellClass.MONUMENT:
        each = np.full(len(references.classes), np.inf, np.float32)
        each[rows] = loss[:-1]  # every example but the square's own bare look, last
        colours = monument_colours(each, references)
    return Fit(cls, gap * familiar, best, colours)
