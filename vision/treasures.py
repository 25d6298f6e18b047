"""Whether a temple square shows its treasure, wherever on the tile it stands.

A treasure put down near the temple tile's edge leaves the middle and most of the square to the
tile: the square's picture then fits a red tile better than the set-up's treasure, which stood
elsewhere. Its colours do not care where it stands: the colours the set-up's treasures showed and
this table's red tiles never show (`learn`) are looked for anywhere on the square (`shown`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_BINS = 16  # per channel: a bin is 16 grey levels, about what is left of the light once undone


class TreasureColours(NamedTuple):
    """The colours only a treasure shows at this table, and how much of its square they fill."""

    only: np.ndarray  # _BINS³ bools: the colour cube's bins a treasure shows and a red tile never does
    share: float  # the share of a treasure's square in those bins, the median over the set-up's


def _bins(pixels: np.ndarray) -> np.ndarray:
    place = np.clip(pixels.reshape(-1, 3).astype(np.float32), 0, 255) * (_BINS / 256)
    index: np.ndarray = np.minimum(place.astype(np.intp), _BINS - 1) @ np.array([_BINS * _BINS, _BINS, 1])
    return index


def _spread(pixels: np.ndarray) -> np.ndarray:
    counts = np.bincount(_bins(pixels), minlength=_BINS**3).astype(np.float64)
    spread: np.ndarray = counts.reshape(_BINS, _BINS, _BINS) / max(1.0, float(counts.sum()))
    return spread


def _near(spread: np.ndarray) -> np.ndarray:
    """Each bin's largest share among itself and its neighbours: a colour a little off (the light
    not quite undone) still counts as the tile's."""
    padded = np.pad(spread, 1)
    near = np.zeros_like(spread)
    for a in range(3):
        for b in range(3):
            for c in range(3):
                near = np.maximum(near, padded[a : a + _BINS, b : b + _BINS, c : c + _BINS])
    return near


def learn(treasures: np.ndarray, tiles: np.ndarray, least: float) -> TreasureColours | None:
    """The colours of the set-up's treasures (`treasures`: their squares' pictures, the tile beneath
    included) that this table's red tiles (`tiles`) do not show: a bin counts when a treasure's
    square fills it four times as much as a red tile fills it or any bin beside it. None when no
    red tile or treasure was shown, or when those colours fill less than `least` of a treasure's
    square (a treasure coloured like its tile)."""
    if len(treasures) == 0 or len(tiles) == 0:
        return None
    only = _spread(treasures) > 4 * _near(_spread(tiles)) + 1e-3
    share = float(np.median([only.reshape(-1)[_bins(each)].mean() for each in treasures]))
    return TreasureColours(only, share) if share >= least else None


def shown(patches: np.ndarray, colours: TreasureColours) -> np.ndarray:
    """How much of a treasure each square (`patches`: n × px × px × 3, the light undone) shows: the
    share of it in a treasure's own colours, against a set-up treasure's share (1: as much)."""
    flat = colours.only.reshape(-1)
    shares = np.array([flat[_bins(patch)].mean() for patch in patches])
    result: np.ndarray = shares / colours.share
    return result
