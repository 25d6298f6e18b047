"""The first look at every square: its ring colours and textures against every example's.

Every square is summed up by a few numbers (`vision.rings`) under the calibration light (the light
undone, `vision.light`). The nearest example gives the class, the gap to the nearest example of
another class gives the confidence, and a square unlike every example (a hand, a glare spot) has a
low one. A square whose printed pattern shows through holds what it held at set-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from vision import light
from vision.light import Light, Undone, undo_light
from vision.reading import CELLS, CellClass, CellReading
from vision.rectify import PX_PER_SQUARE, cells
from vision.rings import features
from vision.tuning import TUNING

if TYPE_CHECKING:
    from vision.references import References

_T = TUNING.first


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
    lit = lit or light.light(top_down, references.board)
    undone = undo_light(top_down, references.board, lit)
    patches = cells(undone.image, PX_PER_SQUARE)
    # Under a glare a clipped channel has lost the colour beneath: it could have been anything.
    lost = (light._channels(np.maximum, top_down) >= TUNING.clipped) & (undone.glare > TUNING.glare_clips)
    washed = cells(lost[..., None].astype(np.float32), PX_PER_SQUARE).reshape(CELLS, -1).mean(axis=1)
    feats = features(patches, Light.unchanged(len(patches))) / references.scale
    protos = references.scaled_prototypes
    # Squared distances of every square to every example: |a|² - 2ab + |b|².
    squared = (feats**2).sum(axis=1)[:, None] - 2 * feats @ protos.T + references.prototype_norms[None, :]
    each = np.sqrt(np.maximum(squared, 0.0))
    by_class = np.minimum.reduceat(each, references.class_starts, axis=1)
    misfit = lit.misfit if lit.misfit is not None else np.zeros(CELLS, np.float32)
    return Seen(patches, each, by_class, each.argmin(axis=1), misfit, washed, undone, lit.tint)


def first_look(seen: Seen, references: References, min_confidence: float) -> tuple[CellReading, ...]:
    glare = cells(seen.undone.glare[..., None], PX_PER_SQUARE).reshape(CELLS, -1).max(axis=1)
    two = (
        np.partition(seen.by_class, 1, axis=1)[:, :2]
        if seen.by_class.shape[1] > 1
        else np.pad(seen.by_class, ((0, 0), (0, 1)), constant_values=np.inf)
    )
    confidence = confidence_of(two[:, 0], two[:, 1])
    readings = []
    for cell in range(CELLS):
        cls = references.classes[int(seen.nearest[cell])]
        if seen.misfit[cell] < _T.surely_bare and seen.washed[cell] <= TUNING.washed:
            # The board's printed pattern shows through: the square holds what it held at set-up.
            cls, confidence[cell] = references.setup[cell], 1.0
        bare = cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)
        if bare and references.setup[cell] is cls and seen.misfit[cell] > _T.empty_misfit:
            # Bare board has its printed pattern; a pale piece in a glare spot has only its colour.
            # (A temple's square was not bare at set-up: its pattern is not known.)
            confidence[cell] = 0.0
        if bare and seen.misfit[cell] > _T.surely_bare and glare[cell] > _T.glare_doubt:
            # Under a glare a pale piece comes near the glaring board; a glare spot missed or
            # followed loosely leaves a bare square's pattern only roughly fitting: a closer look.
            confidence[cell] = 0.0
        if seen.washed[cell] > TUNING.washed and not (
            bare and references.setup[cell] is cls and seen.misfit[cell] < TUNING.light.bare_misfit[1]
        ):
            # A glare has burnt the colours out: nothing there can be read, unless the square still
            # shows its set-up self's printed pattern (the misfit compares with that: a temple
            # square's set-up self holds its treasure, so there it says nothing of bare land).
            confidence[cell] = 0.0
        if confidence[cell] < min_confidence:
            readings.append(CellReading(CellClass.UNKNOWN, float(confidence[cell])))
            continue
        monument = monument_colours(seen.each[cell], references) if cls is CellClass.MONUMENT else None
        readings.append(CellReading(cls, float(confidence[cell]), None, monument))
    return tuple(readings)


def confidence_of(best: np.ndarray, other: np.ndarray) -> np.ndarray:
    """1 for a square much nearer one class than any other and near enough to it; at 0.5 (the
    default threshold) the next class is 30 % further away, or the square is far from them all."""
    gap = np.clip((other / np.maximum(best, 1e-6) - 1) / _T.margin, 0.0, 1.0)
    familiar = np.clip(_T.far / np.maximum(best, 1e-6), 0.0, 1.0)
    result: np.ndarray = gap * familiar
    return result




def monument_colours(each: np.ndarray, references: References) -> tuple[str, str] | None:
    """The colours of the monument whose quarter is nearest this square (`each`: its distance to
    every example), when the nearest quarter of any other monument is clearly further."""
    names, codes = references.named(CellClass.MONUMENT, "monument")
    start, end = references.class_ranges[CellClass.MONUMENT]
    near = np.where(codes >= 0, each[start:end], np.inf)
    best = int(np.argmin(near))
    rival = float(np.min(near[codes != codes[best]], initial=np.inf))
    if not names or rival < _T.named * float(near[best]):
        return None
    name: tuple[str, str] = names[codes[best]]
    return name


# --- dynasties ------------------------------------------------------------------------------------
