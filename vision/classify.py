"""The absolute read: what each square shows, with a confidence, from the board seen from above.

Every square gets a first look (`vision.first_look`: ring colours and textures against the
examples learnt at calibration, the light undone by `vision.light`); the squares it cannot read, or
reads with little to spare, get a second, closer one (`vision.second_look`: every example's picture
pixel by pixel), which overrules it when it clearly sees something else. A leader is named a colour
only when it shows that colour where this table's leaders show theirs (`vision.leaders`). Low
confidence is reported as `CellClass.UNKNOWN`, never rounded to a guess.

This is how a board is read when there is no agreed picture to compare with (set-up, resume,
`companion read`); after an agreement the observer reads only what changed (`vision.decide`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

import numpy as np

from vision import treasures
from vision.first_look import Seen, distances, first_look
from vision.leaders import colour_agrees, nearest_colours, shown
from vision.light import Light
from vision.reading import CellClass, CellReading
from vision.rectify import PX_PER_SQUARE, cells
from vision.references import References
from vision.second_look import Fit, second_look
from vision.tuning import TUNING

_BARE = (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)
_TEMPLE = (CellClass.TILE_RED, CellClass.TREASURE)


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
    min_confidence: float = TUNING.min_confidence,
    lit: Light | None = None,
    face_down: Collection[int] | None = None,
) -> Look:
    """One reading per square (row-major). Squares below min_confidence come back as UNKNOWN.
    lit: the light on the board, if already worked out (`light`). face_down: the squares where a
    face-down tile may lie (under a monument built or about to be), None when not known (anywhere).
    Dynasties need a closer look than this small picture gives: see `vision.leaders.name_dynasty`.

    The first look compares a few numbers per square with the references; the squares it cannot
    read get a second, closer one (`second_look`)."""
    seen = distances(top_down, references, lit)
    first = first_look(seen, references, min_confidence)
    # The squares the first look could not read, and those it read without much to spare: a
    # second look that clearly sees something else there overrules it (it is right far more often).
    # Under a glare the rings' colours are only as right as the glare was followed (a plain dark
    # tile came near a pale figure with a coloured rim): there a piece the first look names,
    # however surely, is checked too, and where the second sees something else, but not surely,
    # neither is taken. (Bare board it names surely under a glare only where its printed pattern
    # shows at the light around, which no glare makes up.)
    glared = _glare(seen) > TUNING.first.glare_doubt
    doubtful = [
        cell
        for cell, reading in enumerate(first)
        if reading.cls is CellClass.UNKNOWN or reading.confidence < TUNING.first.second_opinion
        or (glared[cell] and reading.cls not in _BARE)
    ]
    dazzled = tuple(int(cell) for cell in np.flatnonzero(seen.washed > TUNING.dazzled))
    second = (
        dict(zip(doubtful, second_look(top_down, seen, references, doubtful, face_down), strict=True))
        if doubtful
        else {}
    )
    cells = list(first)
    obscured = []
    for cell, fit in second.items():
        unread = first[cell].cls is CellClass.UNKNOWN
        sure = first[cell].confidence >= TUNING.first.second_opinion
        if sure and min_confidence <= fit.confidence < TUNING.first.second_opinion and fit.cls is not first[cell].cls:
            cells[cell] = CellReading(CellClass.UNKNOWN, fit.confidence)
        elif fit.confidence >= min_confidence and (unread or fit.cls is not first[cell].cls):
            cells[cell] = CellReading(fit.cls, fit.confidence, None, fit.monument)
        pattern = fit.misfit < TUNING.second.pattern_fit
        if unread and not (pattern if fit.cls in _BARE else fit.confidence >= min_confidence):
            obscured.append(cell)
    found = _treasures_found(cells, seen, references, second)
    obscured = [cell for cell in obscured if cell not in found]
    return Look(_colours_checked(tuple(cells), top_down, seen, references), tuple(obscured), dazzled)


def _glare(seen: Seen) -> np.ndarray:
    """The most glare on each square (grey levels), as the light worked it out."""
    glare: np.ndarray = cells(seen.undone.glare[..., None], PX_PER_SQUARE).reshape(len(seen.patches), -1).max(axis=1)
    return glare


def _treasures_found(cells: list[CellReading], seen: Seen, references: References, second: dict[int, Fit]) -> set[int]:
    """Temple squares read as a red tile, or left unread between a red tile and a treasure, that
    show their treasure's own colours (`treasures.shown`) are read as holding it, in `cells`: a
    treasure put down near the tile's edge leaves most of the square to the tile. Which squares.

    Nor is such a square read surely as a bare red tile where it shows some of those colours,
    which red tiles never show (a treasure at the tile's corner, half in a neighbour's shadow), or
    where this table's treasures show no colours of their own (coloured like their tile): nothing
    then tells a treasure at the tile's edge from the tile. It is left unsure."""
    colours = references.treasure_colours
    temples = [
        cell
        for cell, reading in enumerate(cells)
        if references.setup[cell] is CellClass.TREASURE
        and seen.washed[cell] <= TUNING.dazzled  # where a glare clipped them, colours tell nothing
        and (reading.cls is CellClass.TILE_RED
             or (reading.cls is CellClass.UNKNOWN and cell in second and second[cell].cls in _TEMPLE))
    ]
    shares = np.zeros(len(temples)) if colours is None else treasures.shown(seen.patches[temples], colours)
    found = set()
    for cell, share in zip(temples, shares, strict=True):
        if share >= TUNING.treasure_shown:
            # Just sure enough at the least share, fully from twice it.
            cells[cell] = CellReading(CellClass.TREASURE, min(1.0, share / (2 * TUNING.treasure_shown)))
            found.add(cell)
        elif cells[cell].cls is CellClass.TILE_RED and (colours is None or share > 0):
            cells[cell] = CellReading(CellClass.UNKNOWN, 0.0)
    return found


def _colours_checked(
    readings: tuple[CellReading, ...], top_down: np.ndarray, seen: Seen, references: References
) -> tuple[CellReading, ...]:
    """Leaders and tiles, however read, named a colour only when they show it, in the rings where
    this table's pieces of their kind show theirs: see `colour_agrees`. (A pale tile whose colour
    shows only in its frame comes near another colour's tile in both looks, in a shadow or a
    light the camera's exposure washes out.)"""
    checked = list(readings)
    for kind in (references.leader_colours, references.tile_colours):
        named = [cell for cell, reading in enumerate(readings) if reading.cls in kind.each]
        if not named:
            continue
        colours = shown(cells(top_down, PX_PER_SQUARE)[named], kind)
        brightness = cells(seen.undone.brightness[..., None], PX_PER_SQUARE)[named].mean(axis=(1, 2, 3))
        nearest = nearest_colours(colours, brightness, seen.tint, kind)
        for colour, light, cell, near in zip(colours, brightness, named, nearest, strict=True):
            reading = readings[cell]
            if near is not reading.cls and not colour_agrees(
                reading.cls, colour, float(light), seen.tint, kind, reading.confidence
            ):
                checked[cell] = CellReading(CellClass.UNKNOWN, 0.0)
    return tuple(checked)
