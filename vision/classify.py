"""What each square shows, with a confidence, from the top-down image.

Every square is summed up by a few numbers: the mean colour and the texture of four rings around
its centre (centre, middle, rim of the inscribed circle, corners). Rings do not care how a piece is
turned, and they tell discs from squares: a leader leaves the board showing in the corners, a tile
does not. The numbers are compared with references learnt at calibration from pieces whose identity
the player told us; the nearest reference gives the class, the gap to the nearest reference of
another class gives the confidence, and a square unlike every reference (a hand, a glare spot) has
a low one. Low confidence is reported as `CellClass.UNKNOWN`, never rounded to a guess.

Light changes between calibration and play (a lamp switched on, clouds, the camera's exposure)
are undone first: every square of the empty set-up board was measured at calibration, so the
squares that still look like their empty selves tell how the light has changed, as a smooth field
over the board.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from vision.reading import CELLS, COLUMNS, ROWS, CellClass, CellReading
from vision.rectify import PX_PER_SQUARE, cells

MIN_CONFIDENCE = 0.5
_RINGS = (0.0, 0.17, 0.3, 0.42, 0.5)  # radii (squares) of centre, middle, rim; corners beyond 0.5
_INSET = 0.06  # square's edge kept out of the corner region: grid lines and small misalignment
_SCALE_FLOOR = 0.02  # smallest spread of a feature, so one sharp reference cannot dominate
_DETAIL = 6  # side of the small picture of a square used to tell dynasties and monuments apart


@dataclass(frozen=True, slots=True)
class Piece:
    """What a square holds, as the player tells it at calibration."""

    cls: CellClass
    dynasty: str | None = None
    monument: tuple[str, str] | None = None


class Known(Protocol):
    """What the player told us a square holds (vision.synthetic.CellTruth fits)."""

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
    """The mean colour of each square (CELLS × 3, float32)."""
    grid = top_down.reshape(ROWS, px, COLUMNS, px, 3).astype(np.float32)
    means: np.ndarray = grid.mean(axis=(1, 3)).reshape(CELLS, 3)
    return means


def features(patches: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """(n, F) numbers per square patch (n, px, px, 3): per ring, mean B, G, R and the spread of
    brightness, divided by the square's light gain (n × 3) so they read as under the calibration
    light."""
    scaled = patches.astype(np.float32) / 255.0
    weights = _weights(patches.shape[1])
    means = np.einsum("cyxk,ryx->crk", scaled, weights)  # (n, regions, 3)
    brightness = scaled.mean(axis=3)
    squares = np.einsum("cyx,ryx->cr", brightness * brightness, weights)
    spread = np.sqrt(np.maximum(squares - means.mean(axis=2) ** 2, 0.0))
    level = gain.mean(axis=1, keepdims=True)
    normalised = means / gain[:, None, :]
    result: np.ndarray = np.concatenate([normalised.reshape(len(patches), -1), spread / level], axis=1)
    return result


def details(patches: np.ndarray) -> np.ndarray:
    """A _DETAIL² grey picture of each patch, zero-mean and unit-norm: the shape of a symbol."""
    grey = patches.astype(np.float32).mean(axis=3)
    px = grey.shape[1]
    block = px // _DETAIL
    trim = (px - block * _DETAIL) // 2
    core = grey[:, trim : trim + block * _DETAIL, trim : trim + block * _DETAIL]
    small = core.reshape(len(grey), _DETAIL, block, _DETAIL, block).mean(axis=(2, 4)).reshape(len(grey), -1)
    small -= small.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(small, axis=1, keepdims=True)
    result: np.ndarray = small / np.maximum(norms, 1e-6)
    return result


# --- light --------------------------------------------------------------------------------------


def _neighbourhood() -> np.ndarray:
    """CELLS × CELLS weights: how much each other square tells about the light on a square."""
    rows, cols = np.divmod(np.arange(CELLS), COLUMNS)
    distance2 = (rows[:, None] - rows[None, :]) ** 2 + (cols[:, None] - cols[None, :]) ** 2
    weights = np.exp(-distance2 / (2 * _LIGHT_REACH**2))
    np.fill_diagonal(weights, 0.0)  # a square never vouches for itself: a piece is not a shadow
    return weights.astype(np.float32)


_LIGHT_REACH = 1.5  # squares: shadows and lamp spots are wider than this, pieces are not
_NEIGHBOURS = _neighbourhood()


def light_gain(colours: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """How the light changed since calibration at every square (CELLS × 3).

    colours: each square's mean colour now; empty: the same squares on the empty set-up board.
    Squares whose colour is a steady multiple of their empty colour are taken as still empty (most
    of the board is, all game long); the light on a square is the weighted mean of the ratios of
    such squares around it, so soft shadows and lamp spots are followed but no piece explains
    itself away as a change of light.
    """
    ratio = colours / np.maximum(empty, 1.0)
    gain = np.broadcast_to(np.median(ratio, axis=0), ratio.shape).astype(np.float32)
    for tolerance in (0.25, 0.12, 0.08):
        agree = np.all(np.abs(ratio / gain - 1) < tolerance, axis=1).astype(np.float32)
        weights = _NEIGHBOURS * agree[None, :]
        total = weights.sum(axis=1, keepdims=True)
        local = (weights @ ratio) / np.maximum(total, 1e-6)
        # Where no empty square is near, keep the wider estimate.
        gain = np.where(total > 0.3, local, gain).astype(np.float32)
    return gain


# --- references ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class References:
    """What the squares and pieces looked like at calibration."""

    empty: np.ndarray  # CELLS × 3: each square's mean colour on the empty set-up board
    prototypes: np.ndarray  # K × F: features of every example
    details: np.ndarray  # K × _DETAIL²: symbol shape of every example
    classes: tuple[CellClass, ...]  # K
    dynasties: tuple[str | None, ...]  # K
    monuments: tuple[tuple[str, str] | None, ...]  # K
    scale: np.ndarray  # F: the usual spread of each feature among patches of one square

    def __post_init__(self) -> None:
        labels = [c.value for c in self.classes]
        if labels != sorted(labels):
            raise ValueError("examples must be sorted by class")

    @functools.cached_property
    def class_starts(self) -> np.ndarray:
        """Index of the first example of each class (examples are sorted by class)."""
        labels = [c.value for c in self.classes]
        return np.array([i for i, label in enumerate(labels) if i == 0 or labels[i - 1] != label])

    def to_json(self) -> dict[str, Any]:
        return {
            "px_per_square": PX_PER_SQUARE,
            "empty_colours": np.round(self.empty, 2).tolist(),
            "scale": np.round(self.scale, 5).tolist(),
            "examples": [
                {
                    "class": cls.value,
                    "dynasty": dynasty,
                    "monument": list(monument) if monument else None,
                    "features": np.round(proto, 5).tolist(),
                    "detail": np.round(detail, 4).tolist(),
                }
                for cls, dynasty, monument, proto, detail in zip(
                    self.classes, self.dynasties, self.monuments, self.prototypes, self.details, strict=True
                )
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> References:
        if data.get("px_per_square") != PX_PER_SQUARE:
            raise ValueError("px_per_square")
        examples = data["examples"]
        empty = np.array(data["empty_colours"], dtype=np.float32)
        if empty.shape != (CELLS, 3) or not examples:
            raise ValueError("empty_colours")
        return cls(
            empty=empty,
            prototypes=np.array([e["features"] for e in examples], dtype=np.float32),
            details=np.array([e["detail"] for e in examples], dtype=np.float32),
            classes=tuple(CellClass(e["class"]) for e in examples),
            dynasties=tuple(e["dynasty"] for e in examples),
            monuments=tuple(tuple(e["monument"]) if e["monument"] else None for e in examples),
            scale=np.array(data["scale"], dtype=np.float32),
        )


def learn(
    empty: np.ndarray,
    patches: np.ndarray,
    gains: np.ndarray,
    known: Sequence[Known],
    example: Sequence[int],
) -> References:
    """References from square patches whose content the player told us.

    empty: each square's mean colour on the empty set-up board (CELLS × 3); patches (n, px, px, 3)
    with their light gains (n × 3) and what they hold; example: which physical square each patch
    was cut from (several patches of one square, nudged and turned, teach how much a piece put
    down off-centre may differ from itself).
    """
    prototypes = features(patches, gains)
    scale = _spread_within(prototypes, np.asarray(example))
    order = sorted(range(len(known)), key=lambda i: known[i].cls.value)
    return References(
        empty=empty.astype(np.float32),
        prototypes=prototypes[order],
        details=details(patches)[order],
        classes=tuple(known[i].cls for i in order),
        dynasties=tuple(known[i].dynasty for i in order),
        monuments=tuple(known[i].monument for i in order),
        scale=scale,
    )


def _spread_within(prototypes: np.ndarray, example: np.ndarray) -> np.ndarray:
    """The usual deviation of a feature among the patches of one square, plus a floor."""
    order = np.argsort(example, kind="stable")
    groups = np.split(prototypes[order], np.flatnonzero(np.diff(example[order])) + 1)
    deviations = np.concatenate([g - g.mean(axis=0) for g in groups if len(g) > 1] or [prototypes * 0])
    spread: np.ndarray = np.sqrt((deviations**2).mean(axis=0)) + _SCALE_FLOOR
    return spread.astype(np.float32)


# --- reading --------------------------------------------------------------------------------------


def distances(top_down: np.ndarray, references: References) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every square: its patch, its distance to every class (CELLS × classes, in units of the
    usual feature spread) and the nearest example of each class (CELLS × classes)."""
    gain = light_gain(cell_colours(top_down), references.empty)
    patches = cells(top_down, PX_PER_SQUARE)
    feats = features(patches, gain) / references.scale
    protos = references.prototypes / references.scale
    # Squared distances of every square to every example: |a|² - 2ab + |b|².
    squared = (feats**2).sum(axis=1)[:, None] - 2 * feats @ protos.T + (protos**2).sum(axis=1)[None, :]
    each = np.sqrt(np.maximum(squared, 0.0))
    starts = references.class_starts
    by_class = np.minimum.reduceat(each, starts, axis=1)
    nearest = np.stack(
        [starts[k] + each[:, starts[k] : end].argmin(axis=1) for k, end in enumerate([*starts[1:], len(protos)])],
        axis=1,
    )
    return patches, by_class, nearest


def classify(
    top_down: np.ndarray, references: References, min_confidence: float = MIN_CONFIDENCE
) -> tuple[CellReading, ...]:
    """One reading per square (row-major). Squares below min_confidence come back as UNKNOWN."""
    patches, by_class, nearest = distances(top_down, references)
    order = np.argsort(by_class, axis=1)
    rows = np.arange(CELLS)
    best = by_class[rows, order[:, 0]]
    other = by_class[rows, order[:, 1]] if by_class.shape[1] > 1 else np.full(CELLS, np.inf)
    confidence = _confidence(best, other)
    shapes = details(patches)
    readings = []
    for cell in range(CELLS):
        cls = references.classes[int(nearest[cell, order[cell, 0]])]
        if confidence[cell] < min_confidence:
            readings.append(CellReading(CellClass.UNKNOWN, float(confidence[cell])))
            continue
        dynasty = monument = None
        if cls.colour and cls.name.startswith("LEADER_"):
            dynasty = _by_shape(shapes[cell], references, cls, references.dynasties)
        elif cls is CellClass.MONUMENT:
            monument = _by_shape(shapes[cell], references, cls, references.monuments)
        readings.append(CellReading(cls, float(confidence[cell]), dynasty, monument))
    return tuple(readings)


_MARGIN = 3.0  # feature-spread units between the best class and the next for full confidence
_FAR = 6.0  # a square further than this from every example looks like nothing we know


def _confidence(best: np.ndarray, other: np.ndarray) -> np.ndarray:
    gap = np.clip((other - best) / _MARGIN, 0.0, 1.0)
    familiar = np.clip(_FAR / np.maximum(best, 1e-6), 0.0, 1.0)
    result: np.ndarray = gap * familiar
    return result


def _by_shape(shape: np.ndarray, references: References, cls: CellClass, values: Sequence[Any]) -> Any:
    """The dynasty or monument of the example of this class whose symbol shape matches best,
    when it matches clearly better than any example with another value."""
    candidates = [i for i, c in enumerate(references.classes) if c is cls and values[i] is not None]
    if not candidates:
        return None
    scores = references.details[candidates] @ shape
    order = np.argsort(scores)[::-1]
    best = values[candidates[order[0]]]
    rivals = [scores[k] for k in order[1:] if values[candidates[k]] != best]
    if scores[order[0]] < 0.6 or (rivals and scores[order[0]] - rivals[0] < 0.1):
        return None
    return best
